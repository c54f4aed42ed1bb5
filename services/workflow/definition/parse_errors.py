"""Turn msgspec's decoding errors into the spec's ``{path, code, message}`` with plain sentences.

msgspec reports ``Expected `str`, got `int` - at `$.nodes[3].next```. Authors think in nodes, so
the path becomes ``nodes[3] (review).next`` (the id is looked up in the raw document) and the
message is rewritten as a sentence a workflow author understands without knowing msgspec — a
catalog msgid with parameters, like every definition error. A parameter whose name ends in
``_msg`` is itself a msgid (a format's description, a type's words; several joined by ``|`` read
"a or b"), translated by ``core.i18n.localized`` before it fills the sentence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

import msgspec

from contracts.errors import FieldError

from .messages import N_

_AT = re.compile(r"^(?P<msg>.*?) - at `(?P<path>[^`]*)`(?: in `(?P<container>[^`]*)`)?$", re.S)
_NODE = re.compile(r"^nodes\[(\d+)\]")

NODE_TYPES: Final = (
    "start, validation, approval, user_task, manual_task, service_task, integration, "
    "notification, timer, exclusive, parallel, inclusive, event_gateway, call, decision_table, end"
)
_ALLOWED: Final[Mapping[str, str]] = {
    "type": NODE_TYPES,
    "format": "1",
    "result": "completed, rejected, expired, failed",
    "severity": "error, warning",
    "on_validation_error": "pending_task, fail",
    "on_exhausted": "fail, hold",
    "mode": "parallel, sequential",
}
_TYPE_WORDS: Final[Mapping[str, str]] = {
    "str": N_("a string"),
    "int": N_("a whole number"),
    "float": N_("a number"),
    "bool": N_("true or false"),
    "array": N_("a list"),
    "object": N_("an object"),
    "null": "null",
}
_DOTTED = N_("a dotted lowercase name like `purchase.approval`")
_VARIABLE = N_("a variable name like `requester_email`")
_FORMATS: Final[Mapping[str, str]] = {
    "key": _DOTTED,
    "subject_type": _DOTTED,
    "handler": _DOTTED,
    "queue": _DOTTED,
    "pending_queue": _DOTTED,
    "escalate_to": _DOTTED,
    "compensation": _DOTTED,
    "requires": _DOTTED,
    "id": N_("a lowercase identifier like `manager_review` (letters, digits and underscores)"),
    "outcomes": N_("a lowercase identifier like `approve`"),
    "outcome_names": N_("a lowercase identifier like `approve`"),
    "outcome_requires": N_("a lowercase identifier like `approve`"),
    "exclude_completers_of": N_("a node id"),
    "consumes": _VARIABLE,
    "produces": _VARIABLE,
    "searchable": N_("a variable name like `supplier_id`"),
    "personal": _VARIABLE,
    "third_party": N_("a variable name like `witness_name`"),
    "protocol_prefix": N_("2 to 10 capital letters, like `PUR`"),
    "form": N_("a form key, optionally with a version, like `purchase.review@2`"),
    "code": N_("a lowercase identifier like `payment_refused`, or `*` for any other code"),
    "store": _VARIABLE,
    "item": _VARIABLE,
}
_VALID_NAME = N_("a valid name")
_DOCUMENTED = N_("in the documented format")
_LENGTH: Final[Mapping[tuple[bool, bool], str]] = {
    (True, True): N_("`%(field)s` must have at least %(size)s items."),
    (True, False): N_("`%(field)s` must have at least %(size)s characters."),
    (False, True): N_("`%(field)s` must have at most %(size)s items."),
    (False, False): N_("`%(field)s` must have at most %(size)s characters."),
}
_RANGE: Final[Mapping[str, str]] = {
    ">=": N_("`%(field)s` must be at least %(bound)s."),
    ">": N_("`%(field)s` must be greater than %(bound)s."),
    "<=": N_("`%(field)s` must be at most %(bound)s."),
    "<": N_("`%(field)s` must be less than %(bound)s."),
}
_HUMAN_ONLY: Final = {"timers", "policy", "form", "queue", "outcomes"}


def _type_words(spec: str) -> str:
    """msgids of the types in ``int | null``, joined by ``|`` (see the module docstring)."""
    return "|".join(_TYPE_WORDS.get(part.strip(), part.strip()) for part in spec.split("|"))


def _node_label(raw: Any, index: int) -> str:
    nodes = raw.get("nodes") if isinstance(raw, Mapping) else None
    if isinstance(nodes, Sequence) and not isinstance(nodes, str) and index < len(nodes):
        node = nodes[index]
        if isinstance(node, Mapping) and isinstance(node.get("id"), str) and node["id"]:
            return f"nodes[{index}] ({node['id'][:64]})"
    return f"nodes[{index}]"


def spec_path(msgspec_path: str, raw: Any) -> str:
    """``$.nodes[3].next`` → ``nodes[3] (review).next``; the document root is ``definition``."""
    path = msgspec_path.removeprefix("$").removeprefix(".")
    if not path:
        return "definition"
    match = _NODE.match(path)
    if match:
        path = _node_label(raw, int(match.group(1))) + path[match.end() :]
    return path


def _last_field(path: str) -> str:
    tail = path.rsplit(".", 1)[-1]
    return re.sub(r"\[\d+\]$", "", tail)


def _raw_node_type(raw: Any, path: str) -> str | None:
    match = _NODE.match(path.removeprefix("$."))
    nodes = raw.get("nodes") if isinstance(raw, Mapping) else None
    if match and isinstance(nodes, Sequence) and int(match.group(1)) < len(nodes):
        node = nodes[int(match.group(1))]
        if isinstance(node, Mapping) and isinstance(node.get("type"), str):
            return str(node["type"])
    return None


def translate_validation_error(exc: msgspec.MsgspecError, raw: Any) -> FieldError:
    """One msgspec error (it stops at the first) as a :class:`FieldError` with a sentence."""
    text = str(exc)
    if raw is None:
        return FieldError.of(
            "definition",
            "malformed_json",
            N_("The document is not valid JSON: %(reason)s."),
            reason=text,
        )
    found = _AT.match(text)
    msg, mpath, container = (
        (found["msg"], found["path"], found["container"]) if found else (text, "$", None)
    )
    if container is not None:  # an invalid dict key: "- at `key` in `$.x.outcomes`"
        where = spec_path(container, raw)
        field = _last_field(container)
        return FieldError.of(
            where,
            "invalid_format",
            N_("Every key of `%(field)s` must be %(format_msg)s."),
            field=field,
            format_msg=_FORMATS.get(field, _VALID_NAME),
        )
    in_values = "[...]" in mpath  # msgspec's marker for "a value of this mapping"
    where = spec_path(mpath.replace("[...]", ""), raw)
    field = _last_field(where)

    if m := re.match(r"Object contains unknown field `(.+)`$", msg):
        name = m.group(1)
        ntype = _raw_node_type(raw, mpath)
        at = f"{where}.{name}"
        if name == "timers" and ntype is not None:
            return FieldError.of(
                at,
                "unknown_field",
                N_(
                    "A %(type)s node cannot have boundary timers (`timers`); they are only "
                    "allowed on approval, user_task, manual_task, call and subprocess nodes."
                ),
                type=ntype,
            )
        if name == "next" and ntype == "end":
            return FieldError.of(
                at,
                "unknown_field",
                N_("An end node has no outgoing flow, so it cannot have `next`."),
            )
        if name in _HUMAN_ONLY and ntype is not None:
            return FieldError.of(
                at,
                "unknown_field",
                N_("A %(type)s node has no field `%(name)s`; it belongs to human task nodes."),
                type=ntype,
                name=name,
            )
        return FieldError.of(
            at,
            "unknown_field",
            N_("`%(name)s` is not a field the format knows here; check its spelling."),
            name=name,
        )
    if m := re.match(r"Object missing required field `(.+)`$", msg):
        name = m.group(1)
        return FieldError.of(
            f"{where}.{name}",
            "missing_field",
            N_("`%(name)s` is required here but is missing."),
            name=name,
        )
    if m := re.match(r"Expected `([^`]+)` matching regex", msg):
        return FieldError.of(
            where,
            "invalid_format",
            N_("`%(field)s` must be %(format_msg)s."),
            field=field,
            format_msg=_FORMATS.get(field, _DOCUMENTED),
        )
    if m := re.match(r"Expected `([^`]+)` of length ([<>]=?) (\d+)$", msg):
        kind, op, size = m.groups()
        template = _LENGTH[(op.startswith(">"), kind in {"array", "object"})]
        return FieldError.of(where, "invalid_length", template, field=field, size=size)
    if m := re.match(r"Expected `([^`]+)` ([<>]=?) (\S+)$", msg):
        _kind, op, bound_value = m.groups()
        return FieldError.of(where, "out_of_range", _RANGE[op], field=field, bound=bound_value)
    if m := re.match(r"Expected `([^`]+)`, got `([^`]+)`$", msg):
        want, got = m.groups()
        template = (
            N_("Every value of `%(field)s` must be %(want_msg)s, not %(got_msg)s.")
            if in_values
            else N_("`%(field)s` must be %(want_msg)s, not %(got_msg)s.")
        )
        return FieldError.of(
            where,
            "wrong_type",
            template,
            field=field,
            want_msg=_type_words(want),
            got_msg=_type_words(got),
        )
    if m := re.match(r"Invalid (?:enum )?value (.+)$", msg):
        allowed = _ALLOWED.get(field)
        if allowed:
            return FieldError.of(
                where,
                "invalid_value",
                N_(
                    "`%(field)s` has the value %(value)s, which is not allowed. It must be one "
                    "of: %(allowed)s."
                ),
                field=field,
                value=m.group(1),
                allowed=allowed,
            )
        return FieldError.of(
            where,
            "invalid_value",
            N_("`%(field)s` has the value %(value)s, which is not allowed."),
            field=field,
            value=m.group(1),
        )
    return FieldError.of(
        where, "invalid", N_("`%(field)s` is invalid: %(reason)s."), field=field, reason=msg
    )
