"""Turn msgspec's decoding errors into the spec's ``{path, code, message}`` with plain sentences.

msgspec reports ``Expected `str`, got `int` - at `$.nodes[3].next```. Authors think in nodes, so
the path becomes ``nodes[3] (review).next`` (the id is looked up in the raw document) and the
message is rewritten as a sentence a workflow author understands without knowing msgspec.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

import msgspec

from contracts.errors import FieldError

_AT = re.compile(r"^(?P<msg>.*?) - at `(?P<path>[^`]*)`(?: in `(?P<container>[^`]*)`)?$", re.S)
_NODE = re.compile(r"^nodes\[(\d+)\]")

NODE_TYPES: Final = (
    "start, validation, approval, user_task, manual_task, service_task, integration, "
    "notification, timer, exclusive, parallel, decision_table, end"
)
_ALLOWED: Final[Mapping[str, str]] = {
    "type": NODE_TYPES,
    "format": "1",
    "result": "completed, rejected, expired, failed",
    "severity": "error, warning",
    "on_validation_error": "pending_task, fail",
    "on_exhausted": "fail, hold",
}
_TYPE_WORDS: Final[Mapping[str, str]] = {
    "str": "a string",
    "int": "a whole number",
    "float": "a number",
    "bool": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}
_DOTTED = "a dotted lowercase name like `purchase.approval`"
_FORMATS: Final[Mapping[str, str]] = {
    "key": _DOTTED,
    "subject_type": _DOTTED,
    "handler": _DOTTED,
    "queue": _DOTTED,
    "pending_queue": _DOTTED,
    "escalate_to": _DOTTED,
    "compensation": _DOTTED,
    "requires": _DOTTED,
    "id": "a lowercase identifier like `manager_review` (letters, digits and underscores)",
    "outcomes": "a lowercase identifier like `approve`",
    "exclude_completers_of": "a node id",
    "consumes": "a variable name like `requester_email`",
    "produces": "a variable name like `requester_email`",
    "searchable": "a variable name like `supplier_id`",
    "personal": "a variable name like `requester_email`",
    "third_party": "a variable name like `witness_name`",
    "protocol_prefix": "2 to 10 capital letters, like `PUR`",
    "form": "a form key, optionally with a version, like `purchase.review@2`",
}
_HUMAN_ONLY: Final = {"timers", "policy", "form", "queue", "outcomes"}


def _type_words(spec: str) -> str:
    return " or ".join(_TYPE_WORDS.get(part.strip(), part.strip()) for part in spec.split("|"))


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
        return FieldError(
            path="definition",
            code="malformed_json",
            message=f"The document is not valid JSON: {text}.",
        )
    found = _AT.match(text)
    msg, mpath, container = (
        (found["msg"], found["path"], found["container"]) if found else (text, "$", None)
    )
    if container is not None:  # an invalid dict key: "- at `key` in `$.x.outcomes`"
        where = spec_path(container, raw)
        field = _last_field(container)
        fmt = _FORMATS.get(field, "a valid name")
        return FieldError(
            path=where,
            code="invalid_format",
            message=f"Every key of `{field}` must be {fmt}.",
        )
    in_values = "[...]" in mpath  # msgspec's marker for "a value of this mapping"
    where = spec_path(mpath.replace("[...]", ""), raw)
    field = _last_field(where)
    subject = f"Every value of `{field}`" if in_values else f"`{field}`"

    if m := re.match(r"Object contains unknown field `(.+)`$", msg):
        name = m.group(1)
        ntype = _raw_node_type(raw, mpath)
        if name == "timers" and ntype is not None:
            sentence = (
                f"A {ntype} node cannot have boundary timers (`timers`); they are only "
                "allowed on approval, user_task and manual_task nodes."
            )
        elif name == "next" and ntype == "end":
            sentence = "An end node has no outgoing flow, so it cannot have `next`."
        elif name in _HUMAN_ONLY and ntype is not None:
            sentence = f"A {ntype} node has no field `{name}`; it belongs to human task nodes."
        else:
            sentence = f"`{name}` is not a field the format knows here; check its spelling."
        return FieldError(path=f"{where}.{name}", code="unknown_field", message=sentence)
    if m := re.match(r"Object missing required field `(.+)`$", msg):
        name = m.group(1)
        return FieldError(
            path=f"{where}.{name}",
            code="missing_field",
            message=f"`{name}` is required here but is missing.",
        )
    if m := re.match(r"Expected `([^`]+)` matching regex", msg):
        fmt = _FORMATS.get(field, "in the documented format")
        return FieldError(path=where, code="invalid_format", message=f"`{field}` must be {fmt}.")
    if m := re.match(r"Expected `([^`]+)` of length ([<>]=?) (\d+)$", msg):
        kind, op, size = m.groups()
        unit = "items" if kind in {"array", "object"} else "characters"
        bound = "at least" if op.startswith(">") else "at most"
        return FieldError(
            path=where,
            code="invalid_length",
            message=f"`{field}` must have {bound} {size} {unit}.",
        )
    if m := re.match(r"Expected `([^`]+)` ([<>]=?) (\S+)$", msg):
        _kind, op, bound_value = m.groups()
        words = {">=": "at least", ">": "greater than", "<=": "at most", "<": "less than"}[op]
        return FieldError(
            path=where,
            code="out_of_range",
            message=f"`{field}` must be {words} {bound_value}.",
        )
    if m := re.match(r"Expected `([^`]+)`, got `([^`]+)`$", msg):
        want, got = m.groups()
        return FieldError(
            path=where,
            code="wrong_type",
            message=f"{subject} must be {_type_words(want)}, not {_type_words(got)}.",
        )
    if m := re.match(r"Invalid (?:enum )?value (.+)$", msg):
        allowed = _ALLOWED.get(field)
        tail = f" It must be one of: {allowed}." if allowed else ""
        return FieldError(
            path=where,
            code="invalid_value",
            message=f"`{field}` has the value {m.group(1)}, which is not allowed.{tail}",
        )
    return FieldError(path=where, code="invalid", message=f"`{field}` is invalid: {msg}.")
