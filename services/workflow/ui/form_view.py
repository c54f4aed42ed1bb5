"""A versioned form schema as HTML inputs, and a posted HTML form back as submission values.

Rendering reads the schema only (labels, help, required, limits); validation stays with the
task service, which checks the exact form version the task pins. Browsers post strings, so
numbers and booleans are turned into what the form format expects and anything unparsable is
passed on as is, for the validator to report on its field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from contracts.errors import FieldError
from services.workflow.forms import FormSchema, field_type, parse_form_ref

INPUT_TYPES = {
    "text": "text",
    "integer": "number",
    "decimal": "text",
    "money": "text",
    "date": "date",
    "datetime": "text",
    "email": "email",
    "cpf": "text",
    "cnpj": "text",
}


@dataclass(frozen=True)
class FieldView:
    id: str
    kind: str
    input_type: str
    label: str
    help: str | None
    required: bool
    read_only: bool
    max_length: int | None
    options: tuple[tuple[str, str], ...]
    value: Any
    error: str | None

    @property
    def dom_id(self) -> str:
        return f"field-{self.id}"

    @property
    def described_by(self) -> str:
        ids = [f"{self.dom_id}-help"] if self.help else []
        if self.error:
            ids.append(f"{self.dom_id}-error")
        return " ".join(ids)


def find_schema(forms: tuple[Mapping[str, Any], ...], reference: str) -> FormSchema | None:
    """The registered schema a task's ``key@version`` (or bare ``key``: the latest) names."""
    ref = parse_form_ref(reference)
    found = [f for f in forms if f.get("key") == ref.key]
    if ref.version is not None:
        found = [f for f in found if f.get("version") == ref.version]
    if not found:
        return None
    latest = max(found, key=lambda f: int(f.get("version") or 0))
    return msgspec.convert(dict(latest), FormSchema)


def field_views(
    schema: FormSchema, values: Mapping[str, Any], errors: Mapping[str, str]
) -> list[FieldView]:
    views = []
    for field in schema.fields:
        kind = field_type(field)
        options = tuple((o.value, o.label) for o in getattr(field, "options", ()) or ())
        views.append(
            FieldView(
                id=field.id,
                kind=kind,
                input_type=INPUT_TYPES.get(kind, "text"),
                label=field.label or field.id,
                help=field.help,
                required=field.required,
                read_only=field.read_only,
                max_length=getattr(field, "max_length", None),
                options=options,
                value=values.get(field.id, field.default),
                error=errors.get(field.id),
            )
        )
    return views


def submitted_values(schema: FormSchema, form: Any) -> dict[str, Any]:
    """The posted form as the submission the validator expects (blank means left empty)."""
    data: dict[str, Any] = {}
    for field in schema.fields:
        kind = field_type(field)
        if field.read_only or kind == "file":
            continue
        if kind == "multi_select":
            data[field.id] = [str(v) for v in form.getall(field.id, [])]
            continue
        if kind == "boolean":
            data[field.id] = form.get(field.id) is not None
            continue
        raw = str(form.get(field.id) or "").strip()
        if not raw:
            data[field.id] = None
        elif kind == "integer":
            try:
                data[field.id] = int(raw)
            except ValueError:
                data[field.id] = raw
        else:
            data[field.id] = raw
    return data


def errors_by_field(errors: tuple[FieldError, ...], known: set[str]) -> dict[str, str]:
    """The validator's ``path`` is the field id (possibly under a prefix): first error wins."""
    found: dict[str, str] = {}
    for error in errors:
        key = error.path.replace("/", ".").split(".")[-1]
        target = key if key in known else "__form__"
        found.setdefault(target, error.message)
    return found
