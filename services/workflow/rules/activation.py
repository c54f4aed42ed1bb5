"""Turn caller data into the only thing the engine may see: plain JSON, measured.

The activation is serialised with msgspec once. That single pass (in C) does three jobs: it
refuses anything that is not data (functions, arbitrary objects — the engine would otherwise
*call* a Python callable found in its context), it measures the size the limits speak of, and
it yields the exact bytes a worker process receives. Decoding those bytes back gives fresh plain
``dict``/``list``/``str``/``int``/``float``/``bool``/``None`` values, so nothing the caller holds
is shared with the engine. Datetimes become RFC 3339 strings; rules read them with
``timestamp(x)``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, NamedTuple

import msgspec

from .errors import rule_error
from .limits import RuleLimits

_ENCODER = msgspec.json.Encoder()
_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


class Prepared(NamedTuple):
    """The referenced variables as JSON ``data``; ``items`` over-counts values (for cost)."""

    data: bytes
    items: int


def prepare(
    activation: Mapping[str, object], names: tuple[str, ...], where: str, limits: RuleLimits
) -> Prepared:
    """Select the names a rule reads, serialise and check them against the limits."""
    selected = {name: activation[name] for name in names if name in activation}
    try:
        data = _ENCODER.encode(selected)
    except RecursionError:
        raise rule_error(
            where, "activation_too_deep", "the variables are nested too deeply"
        ) from None
    except (TypeError, ValueError, OverflowError):
        raise rule_error(
            where, "activation_type", "a variable holds a value that is not JSON-like data"
        ) from None
    if len(data) > limits.max_activation_bytes:
        raise rule_error(
            where,
            "activation_too_large",
            f"the variables take {len(data)} bytes, "
            f"over the {limits.max_activation_bytes}-byte limit",
        )
    if _deeper_than(data, limits.max_activation_depth + 1):
        raise rule_error(
            where,
            "activation_too_deep",
            f"the variables nest deeper than {limits.max_activation_depth} levels",
        )
    return Prepared(data, data.count(b",") + data.count(b":") + 1)


def _deeper_than(data: bytes, depth: int) -> bool:
    """Whether JSON ``data`` nests containers more than ``depth`` levels (C-speed passes only).

    Strings are removed, the remaining brackets normalised to ``[]``; each ``replace`` round
    deletes the innermost level, so after ``depth`` rounds anything left was deeper.
    """
    if data.count(b"{") + data.count(b"[") <= depth:
        return False  # not even that many opening brackets (strings included)
    skeleton = _STRINGS.sub(b"", data).translate(_BRACKETS, _NOT_BRACKETS)
    for _ in range(depth):
        if not skeleton:
            return False
        skeleton = skeleton.replace(b"[]", b"")
    return bool(skeleton)


def decode(prepared: Prepared) -> dict[str, Any]:
    """Fresh plain values for the in-process engine."""
    value: dict[str, Any] = msgspec.json.decode(prepared.data)
    return value


_SCALARS = (bool, int, float, type(None))


def check_result(value: object, where: str, limits: RuleLimits) -> object:
    """Refuse results that are too large or not plain data (e.g. a CEL optional or type)."""
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, str | bytes):
        if len(value) > limits.max_result_bytes:
            raise _too_large(where, limits)
        return value
    try:
        size = len(_ENCODER.encode(value))  # in C, before any Python walk of a big value
    except (TypeError, ValueError, OverflowError, RecursionError):
        raise rule_error(where, "unsupported_result", "the result is not plain data") from None
    if size > limits.max_result_bytes:
        raise _too_large(where, limits)
    if not _plain(value, limits.max_activation_depth * 2):
        raise rule_error(where, "unsupported_result", "the result is not plain data")
    return value


def _too_large(where: str, limits: RuleLimits) -> Exception:
    return rule_error(
        where, "result_too_large", f"the result exceeds {limits.max_result_bytes} bytes"
    )


def _plain(value: object, depth: int) -> bool:
    if isinstance(value, (*_SCALARS, str, bytes, datetime, timedelta)):
        return True
    if depth <= 0:
        return False
    if isinstance(value, list):
        return all(_plain(v, depth - 1) for v in value)
    if isinstance(value, dict):
        return all(
            isinstance(k, str | int | bool) and _plain(v, depth - 1) for k, v in value.items()
        )
    return False
