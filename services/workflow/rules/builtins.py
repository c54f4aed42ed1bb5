"""The CEL surface the rules package accepts: what the Rust ``cel`` engine evaluates natively.

Only these functions and macros compile; anything else (``open``, ``exec``, ``lowerAscii``) is an
unknown function at publish time. The table mirrors what ``cel`` 0.10 actually implements, probed
by the tests, so an accepted expression never fails later because a function is missing.
"""

from __future__ import annotations

from typing import NamedTuple


class Signature(NamedTuple):
    """``receiver``: called as ``x.f(...)``; ``arity`` counts arguments besides the receiver.

    ``accepts`` lists the static types allowed for the first operand (receiver or sole
    argument); ``None`` accepts anything. ``result`` is the static result type.
    """

    receiver: bool
    arity: int
    accepts: frozenset[str] | None
    result: str | None


_NUM_STR = frozenset({"int", "uint", "double", "string"})
_TIME = frozenset({"timestamp"})
_TIME_OR_DURATION = frozenset({"timestamp", "duration"})

FUNCTIONS: dict[str, tuple[Signature, ...]] = {
    "size": (
        Signature(True, 0, frozenset({"string", "bytes", "list", "map"}), "int"),
        Signature(False, 1, frozenset({"string", "bytes", "list", "map"}), "int"),
    ),
    "contains": (Signature(True, 1, frozenset({"string"}), "bool"),),
    "startsWith": (Signature(True, 1, frozenset({"string"}), "bool"),),
    "endsWith": (Signature(True, 1, frozenset({"string"}), "bool"),),
    "matches": (Signature(True, 1, frozenset({"string"}), "bool"),),
    "int": (Signature(False, 1, _NUM_STR, "int"),),
    "uint": (Signature(False, 1, _NUM_STR, "uint"),),
    "double": (Signature(False, 1, _NUM_STR, "double"),),
    "string": (Signature(False, 1, _NUM_STR | {"bytes", "timestamp", "duration"}, "string"),),
    "bytes": (Signature(False, 1, frozenset({"string", "bytes"}), "bytes"),),
    "timestamp": (Signature(False, 1, frozenset({"string", "timestamp"}), "timestamp"),),
    "duration": (Signature(False, 1, frozenset({"string", "duration"}), "duration"),),
    "dyn": (Signature(False, 1, None, None),),
    "type": (Signature(False, 1, None, "string"),),
}
for _getter in (
    "getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate", "getDayOfWeek",
):  # fmt: skip
    FUNCTIONS[_getter] = (Signature(True, 0, _TIME, "int"),)
for _getter in ("getHours", "getMinutes", "getSeconds", "getMilliseconds"):
    FUNCTIONS[_getter] = (Signature(True, 0, _TIME_OR_DURATION, "int"),)

MACRO_ARITY = {"all": (1,), "exists": (1,), "exists_one": (1,), "filter": (1,), "map": (1, 2)}
"""Expressions after the bound variable: ``map`` also has the ``map(x, pred, expr)`` form."""

TYPE_NAMES = frozenset(
    {"int", "uint", "double", "string", "bytes", "bool", "list", "map", "null_type", "type"}
)
"""Identifiers CEL resolves to type values (``type(x) == string``); never activation names."""

NUMERIC = frozenset({"int", "uint", "double"})
