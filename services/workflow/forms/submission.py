"""Validate a submission against a form version: visibility first, every error, all or nothing.

What a person sends is accepted whole or not at all: a half-stored answer would let a task
complete with a required field missing. Every invalid field gets its own message so the person
fixes everything in one round. Hidden fields do not exist for that submission — a value sent
for one is dropped, never stored and never an error, because a browser that hid a field after
it was typed into still sends it; what is dropped cannot influence the stored answer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

import msgspec

from contracts.errors import FieldError, RuleError, ValidationFailed

from .model import BooleanField, Field, FileRef, FormSchema, Value
from .ports import ExpressionCompiler
from .schema import CompiledForm, compile_form
from .values import Invalid, clean_value, is_empty
from .visibility import expression_value

_SAFE_KEY: Final = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_MISMATCH: Final[Any] = object()
"""Stands for a sent read-only value that does not even parse: never equal to the expected one."""


class Answer(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One accepted value; ``value`` is ``None`` when a visible, optional field was left empty."""

    id: str
    value: Value


class CleanSubmission(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The normalised values of an accepted submission, pinned to the exact form version.

    ``answers`` hold every visible field in schema order (a tuple, so nothing can change it
    after validation); ``hidden`` lists the fields that did not apply to this submission.
    """

    form_key: str
    form_version: int
    form_checksum: str
    answers: tuple[Answer, ...]
    hidden: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """A fresh JSON-ready ``{field id: value}``: lists for multi-selects, maps for files."""
        return answers_dict(self.answers)


def answers_dict(answers: tuple[Answer, ...]) -> dict[str, Any]:
    """``answers`` as a new plain dict; mutating it never touches the answers themselves."""
    return {a.id: _plain(a.value) for a in answers}


def _plain(value: Value) -> Any:
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, FileRef):
        return msgspec.to_builtins(value)
    return value


def _error(path: str, code: str, message: str) -> FieldError:
    return FieldError(path=path, code=code, message=message)


def _required(field: Field, value: Value) -> FieldError | None:
    if isinstance(field, BooleanField) and field.required and value is not True:
        return _error(field.id, "required", "É preciso marcar esta opção.")
    if field.required and value is None:
        return _error(field.id, "required", "Campo obrigatório.")
    return None


def _clean(form: CompiledForm, field: Field, raw: object) -> Value:
    return None if is_empty(field, raw) else clean_value(field, raw, form.patterns.get(field.id))


def _read_only(
    form: CompiledForm, field: Field, data: Mapping[Any, object], previous: Mapping[str, object]
) -> tuple[Value, FieldError | None]:
    """Read-only values come from ``previous`` (or the default); sending another is refused."""
    expected = form.defaults[field.id]
    if field.id in previous:
        try:
            expected = _clean(form, field, previous[field.id])
        except Invalid:
            return None, _error(
                field.id,
                "invalid_previous_value",
                "O valor registrado deste campo não é válido neste formulário.",
            )
    if field.id in data:
        try:
            sent = _clean(form, field, data[field.id])
        except Invalid:
            sent = _MISMATCH
        if sent != expected:
            return expected, _error(field.id, "read_only", "Este campo não pode ser alterado.")
    return expected, _required(field, expected)


def _outcome(
    form: CompiledForm, field: Field, data: Mapping[Any, object], previous: Mapping[str, object]
) -> tuple[Value, FieldError | None]:
    """The value a field would take if visible, or the error explaining why it cannot."""
    if field.read_only:
        return _read_only(form, field, data, previous)
    if field.id not in data:
        value = form.defaults[field.id]
    else:
        try:
            value = _clean(form, field, data[field.id])
        except Invalid as exc:
            return None, _error(field.id, exc.code, exc.message)
    return value, _required(field, value)


def validate_compiled(
    form: CompiledForm, data: Mapping[str, object], *, previous: Mapping[str, object] | None = None
) -> CleanSubmission:
    """Validate ``data`` against a compiled form; the hot path (nothing is compiled here).

    Absent keys take the field's default; ``null`` or blank means "left empty". ``previous``
    holds the values already recorded for this task (a snapshot's :meth:`as_dict`): read-only
    fields keep them. Raises :class:`ValidationFailed` listing every error, each with the
    field id as ``path``; conditions raising :class:`RuleError` are reported as an error on
    their field (``visibility_failed``), so bad input never escapes as another exception.
    """
    if not isinstance(data, Mapping):
        raise ValidationFailed(
            "O formulário enviado é inválido.",
            errors=[_error("submission", "wrong_type", "Envie os campos como um objeto JSON.")],
        )
    before = previous or {}
    outcomes = {i: _outcome(form, f, data, before) for i, f in form.fields.items()}
    visible: dict[str, bool] = {}
    broken: dict[str, FieldError] = {}
    activation: dict[str, object] = dict.fromkeys(form.fields)
    for field_id in form.order:
        shown: object = True
        condition = form.conditions.get(field_id)
        if condition is not None:
            try:
                shown = condition(dict(activation))
            except RuleError:
                shown = None
            if not isinstance(shown, bool):
                broken[field_id] = _error(
                    field_id,
                    "visibility_failed",
                    "Não foi possível decidir se este campo se aplica; revise os campos dos "
                    "quais ele depende.",
                )
                shown = False
        visible[field_id] = bool(shown)
        value, error = outcomes[field_id]
        if shown and error is None:
            activation[field_id] = expression_value(form.fields[field_id], value)

    errors: list[FieldError] = []
    answers: list[Answer] = []
    for field_id in form.fields:
        if field_id in broken:
            errors.append(broken[field_id])
        elif visible[field_id]:
            value, error = outcomes[field_id]
            if error is not None:
                errors.append(error)
            answers.append(Answer(id=field_id, value=value))
    for key in data:
        if key not in form.fields:
            path = key if isinstance(key, str) and _SAFE_KEY.fullmatch(key) else "submission"
            errors.append(_error(path, "unknown_field", "Este campo não existe neste formulário."))
    schema = form.schema
    if errors:
        raise ValidationFailed(
            "O formulário tem campos inválidos.",
            errors=errors,
            form=f"{schema.key}@{schema.version}",
        )
    return CleanSubmission(
        form_key=schema.key,
        form_version=schema.version,
        form_checksum=form.checksum,
        answers=tuple(answers),
        hidden=tuple(i for i in form.fields if not visible[i]),
    )


def validate_submission(
    schema: FormSchema,
    data: Mapping[str, object],
    *,
    compiler: ExpressionCompiler,
    previous: Mapping[str, object] | None = None,
) -> CleanSubmission:
    """Validate ``data`` against ``schema`` (a :class:`FormSchema`), compiling it first.

    Convenient for one-off calls; callers validating many submissions should keep the result
    of :func:`compile_form` per form version and call :func:`validate_compiled`.
    """
    return validate_compiled(compile_form(schema, compiler), data, previous=previous)
