"""Turn msgspec's decoding errors into ``{path, code, message}`` that a form author understands.

msgspec says ``Expected `int`, got `str` - at `$.fields[2].max_length```; authors look for the
field by its id, so the path becomes ``fields[2] (reason).max_length``. Schema errors are read
by the developers and administrators who write forms, so — like the workflow definition
errors — they are English sentences; submission errors (:mod:`.values`) are Portuguese.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

import msgspec

from contracts.errors import FieldError

from .model import FIELD_TYPES

_AT: Final = re.compile(r"^(?P<msg>.*?) - at `(?P<path>[^`]*)`$", re.S)
_FIELD: Final = re.compile(r"^fields\[(\d+)\]")
_FORMATS: Final[Mapping[str, str]] = {
    "key": "a dotted lowercase name like `diario.review`",
    "id": "a lowercase identifier like `decision` (letters, digits and underscores)",
    "min": "a decimal number written as a string, like `1000.00`",
    "max": "a decimal number written as a string, like `1000.00`",
    "accept": "a MIME type like `application/pdf` or `image/*`, in lowercase",
}
_TYPE_WORDS: Final[Mapping[str, str]] = {
    "str": "a string",
    "int": "a whole number",
    "float": "a number",
    "bool": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
    "date": "a date like `2026-01-31`",
    "datetime": "a date and time like `2026-01-31T14:30:00-03:00`",
}


def field_label(raw: Any, index: int) -> str:
    """``fields[2] (reason)`` when the raw document has an id there, else ``fields[2]``."""
    fields = raw.get("fields") if isinstance(raw, Mapping) else None
    if isinstance(fields, Sequence) and not isinstance(fields, str) and index < len(fields):
        item = fields[index]
        if isinstance(item, Mapping) and isinstance(item.get("id"), str) and item["id"]:
            return f"fields[{index}] ({item['id'][:64]})"
    return f"fields[{index}]"


def _path(msgspec_path: str, raw: Any) -> str:
    path = msgspec_path.removeprefix("$").removeprefix(".")
    if not path:
        return "form"
    match = _FIELD.match(path)
    if match:
        path = field_label(raw, int(match.group(1))) + path[match.end() :]
    return path


def _words(spec: str) -> str:
    return " or ".join(_TYPE_WORDS.get(part.strip(), part.strip()) for part in spec.split("|"))


def translate(exc: msgspec.MsgspecError, raw: Any) -> FieldError:
    """One msgspec error (it stops at the first) as a :class:`FieldError` with a sentence."""
    text = str(exc)
    if raw is None:
        return FieldError(path="form", code="malformed_json", message=f"Not valid JSON: {text}.")
    found = _AT.match(text)
    msg, mpath = (found["msg"], found["path"]) if found else (text, "$")
    where = _path(mpath, raw)
    name = re.sub(r"\[\d+\]$", "", where.rsplit(".", 1)[-1])

    if m := re.match(r"Object contains unknown field `(.+)`$", msg):
        return FieldError(
            path=f"{where}.{m[1]}",
            code="unknown_field",
            message=f"`{m[1]}` is not an attribute here (or not of this field type).",
        )
    if m := re.match(r"Object missing required field `(.+)`$", msg):
        return FieldError(
            path=f"{where}.{m[1]}", code="missing_field", message=f"`{m[1]}` is required here."
        )
    if re.match(r"Expected `[^`]+` matching regex", msg):
        fmt = _FORMATS.get(name, "in the documented format")
        return FieldError(path=where, code="invalid_format", message=f"`{name}` must be {fmt}.")
    if m := re.match(r"Expected `([^`]+)` of length ([<>]=?) (\d+)$", msg):
        unit = "items" if m[1] in {"array", "object"} else "characters"
        bound = "at least" if m[2].startswith(">") else "at most"
        return FieldError(
            path=where, code="invalid_length", message=f"`{name}` must have {bound} {m[3]} {unit}."
        )
    if m := re.match(r"Expected `([^`]+)` ([<>]=?) (\S+)$", msg):
        words = {">=": "at least", ">": "greater than", "<=": "at most", "<": "less than"}[m[2]]
        return FieldError(
            path=where, code="out_of_range", message=f"`{name}` must be {words} {m[3]}."
        )
    if m := re.match(r"Expected `([^`]+)`, got `([^`]+)`$", msg):
        return FieldError(
            path=where,
            code="wrong_type",
            message=f"`{name}` must be {_words(m[1])}, not {_words(m[2])}.",
        )
    if m := re.match(r"Expected `datetime` with a timezone component", msg):
        return FieldError(
            path=where,
            code="invalid_format",
            message=f"`{name}` must carry a UTC offset, like `2026-01-31T14:30:00-03:00`.",
        )
    if m := re.match(r"Invalid (?:enum )?value (.+)$", msg):
        allowed = {"type": FIELD_TYPES, "format": "1"}.get(name)
        tail = f" It must be one of: {allowed}." if allowed else ""
        return FieldError(
            path=where, code="invalid_value", message=f"`{name}` cannot be {m[1]}.{tail}"
        )
    return FieldError(path=where, code="invalid", message=f"`{name}` is invalid: {msg}.")
