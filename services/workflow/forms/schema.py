"""Parse, check and compile a form schema; checksums and ``key@version`` references.

A form version is immutable once published and a submission snapshot points at it by key,
version and checksum, so every check runs here, at publish time, and reports every problem at
once: an author fixing a form one error per attempt would give up. ``compile_form`` also keeps
what validating a submission needs (compiled patterns and conditions, normalised defaults and
the visibility order) so a hot path compiles nothing.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

import msgspec

from contracts.errors import BadRequest, Conflict, FieldError, RuleError, ValidationFailed

from .model import (
    DateField,
    DatetimeField,
    DecimalField,
    EmailField,
    Field,
    FileField,
    FormSchema,
    IntegerField,
    LongTextField,
    MoneyField,
    MultiSelectField,
    SelectField,
    TextField,
    Value,
)
from .parse_errors import translate
from .patterns import UnsafePattern, compile_pattern
from .ports import Condition, ExpressionCompiler
from .values import Invalid, clean_value, is_empty
from .visibility import CEL_RESERVED, cycle_through, evaluation_order, references

_REF: Final = re.compile(r"^([a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*)(?:@([1-9][0-9]{0,8}))?$")


class FormRef(msgspec.Struct, frozen=True, kw_only=True):
    """``diario.review@2``; without ``@`` (``version`` is ``None``) it means the latest version."""

    key: str
    version: int | None = None

    def __str__(self) -> str:
        return self.key if self.version is None else f"{self.key}@{self.version}"


def parse_form_ref(text: str) -> FormRef:
    """Parse ``key`` or ``key@version``; raises :class:`BadRequest` naming the ``form`` path."""
    match = _REF.fullmatch(text) if len(text) <= 110 else None
    if match is None:
        raise BadRequest(
            "Invalid form reference",
            errors=[
                FieldError(
                    path="form",
                    code="invalid_format",
                    message="A form reference is `key` or `key@version`, like `diario.review@2`.",
                )
            ],
        )
    return FormRef(key=match[1], version=int(match[2]) if match[2] else None)


def canonical_json(schema: FormSchema) -> bytes:
    """Sorted keys and every default written out, so a later default change cannot alter it."""
    return msgspec.json.encode(schema, order="sorted")


def form_checksum(schema: FormSchema) -> str:
    """SHA-256 (hex) of :func:`canonical_json`; snapshots carry it to pin what was answered."""
    return hashlib.sha256(canonical_json(schema)).hexdigest()


def is_new_version(schema: FormSchema, published_checksum: str | None) -> bool:
    """Decide what registering ``schema`` means given the checksum already stored for its
    ``key@version`` (``None`` when there is none).

    Modules register their forms at every boot, so the same content again is normal and
    returns ``False`` (nothing to store); a new version returns ``True``. Different content
    under a published version raises :class:`Conflict`: published forms are immutable, a
    change needs a new version, and old snapshots must keep pointing at what was answered.
    """
    if published_checksum is None:
        return True
    if published_checksum == form_checksum(schema):
        return False
    raise Conflict(
        "A published form version cannot change; register a new version",
        form=f"{schema.key}@{schema.version}",
    )


@dataclass(frozen=True, slots=True)
class CompiledForm:
    """A checked schema plus what validating submissions needs, built once per version."""

    schema: FormSchema
    checksum: str
    fields: Mapping[str, Field]
    patterns: Mapping[str, re.Pattern[str]]
    conditions: Mapping[str, Condition]
    defaults: Mapping[str, Value]
    order: tuple[str, ...]
    """Field ids in visibility-evaluation order (dependencies first)."""


def _decode(data: bytes | str | Mapping[str, Any]) -> FormSchema:
    raw: Any = data
    if isinstance(data, bytes | str):
        try:
            raw = msgspec.json.decode(data)
        except msgspec.DecodeError as exc:
            raise ValidationFailed(
                "The form schema is not valid JSON", errors=[translate(exc, None)]
            ) from None
    try:
        return msgspec.convert(raw, FormSchema)
    except msgspec.ValidationError as exc:
        raise ValidationFailed(
            "The form schema does not follow the format", errors=[translate(exc, raw)]
        ) from None


class _Checker:
    """Collects every semantic error of one schema, each at its ``fields[i] (id).attr`` path."""

    def __init__(self, schema: FormSchema, compiler: ExpressionCompiler) -> None:
        self.schema = schema
        self.compiler = compiler
        self.errors: list[FieldError] = []
        self.patterns: dict[str, re.Pattern[str]] = {}
        self.conditions: dict[str, Condition] = {}
        self.defaults: dict[str, Value] = {}
        self.ids = [f.id for f in schema.fields]

    def where(self, index: int, attr: str) -> str:
        return f"fields[{index}] ({self.schema.fields[index].id}).{attr}"

    def error(self, index: int, attr: str, code: str, message: str) -> None:
        self.errors.append(FieldError(path=self.where(index, attr), code=code, message=message))

    def run(self) -> None:
        seen: set[str] = set()
        for index, field in enumerate(self.schema.fields):
            if field.id in seen:
                self.error(
                    index, "id", "duplicate_id", f"Another field already has id `{field.id}`."
                )
            seen.add(field.id)
            if field.id in CEL_RESERVED:
                self.error(
                    index, "id", "reserved_id", f"`{field.id}` is a CEL reserved word; rename it."
                )
            self.check_attributes(index, field)
            self.check_default(index, field)
            self.check_expression(index, field)

    def ordered(self, index: int, low: Any, high: Any, attrs: tuple[str, str]) -> None:
        if low is not None and high is not None and low > high:
            self.error(
                index, attrs[0], "min_greater_than_max", f"`{attrs[0]}` exceeds `{attrs[1]}`."
            )

    def places(self, index: int, field: DecimalField | MoneyField) -> None:
        allowed = field.decimal_places if isinstance(field, DecimalField) else 2
        for attr in ("min", "max"):
            bound = getattr(field, attr)
            if bound is not None and "." in bound and len(bound.split(".")[1]) > allowed:
                self.error(
                    index,
                    attr,
                    "too_many_decimal_places",
                    f"`{attr}` has more than {allowed} decimal places.",
                )

    def check_attributes(self, index: int, field: Field) -> None:
        if isinstance(field, TextField | LongTextField):
            self.ordered(index, field.min_length, field.max_length, ("min_length", "max_length"))
        if isinstance(field, IntegerField | DateField | DatetimeField):
            self.ordered(index, field.min, field.max, ("min", "max"))
        if isinstance(field, DecimalField | MoneyField):
            self.places(index, field)
            low, high = (None if b is None else Decimal(b) for b in (field.min, field.max))
            self.ordered(index, low, high, ("min", "max"))
        if isinstance(field, SelectField | MultiSelectField):
            values = [option.value for option in field.options]
            for j, value in enumerate(values):
                if value in values[:j]:
                    self.error(
                        index,
                        f"options[{j}].value",
                        "duplicate_option",
                        f"Option `{value}` appears more than once.",
                    )
        if isinstance(field, MultiSelectField):
            fewest, most = field.min_selections, field.max_selections
            self.ordered(index, fewest, most, ("min_selections", "max_selections"))
            for attr, bound in (("min_selections", fewest), ("max_selections", most)):
                if bound is not None and bound > len(field.options):
                    self.error(
                        index,
                        attr,
                        "exceeds_options",
                        f"`{attr}` is larger than the number of options.",
                    )
        if isinstance(field, TextField | EmailField) and field.pattern is not None:
            try:
                compiled = compile_pattern(field.pattern, max_input=field.max_length)
            except UnsafePattern as exc:
                self.error(index, "pattern", "unsafe_pattern", f"The pattern is refused: {exc}.")
            else:
                self.patterns[field.id] = compiled

    def check_default(self, index: int, field: Field) -> None:
        if field.default is None:
            return
        if isinstance(field, FileField):
            self.error(index, "default", "default_not_allowed", "A file field has no default.")
            return
        if is_empty(field, field.default):
            self.defaults[field.id] = None
            return
        try:
            self.defaults[field.id] = clean_value(field, field.default, self.patterns.get(field.id))
        except Invalid as exc:
            self.error(
                index,
                "default",
                "invalid_default",
                f"The default is not a valid value for this field ({exc.code}).",
            )

    def check_expression(self, index: int, field: Field) -> None:
        if field.visible_when is None:
            return
        where = self.where(index, "visible_when")
        others = frozenset(self.ids) - {field.id}
        try:
            self.conditions[field.id] = self.compiler.compile(
                field.visible_when, variables=others, where=where
            )
        except (RuleError, ValueError) as exc:
            detail = exc.detail if isinstance(exc, RuleError) else str(exc)
            try:
                self.compiler.compile(field.visible_when, variables=set(self.ids), where=where)
            except (RuleError, ValueError):
                self.error(
                    index,
                    "visible_when",
                    "invalid_expression",
                    f"The expression does not compile: {detail}.",
                )
            else:
                self.error(
                    index,
                    "visible_when",
                    "self_reference",
                    "A field's visibility cannot depend on its own value.",
                )

    def dependencies(self) -> dict[str, frozenset[str]]:
        deps: dict[str, frozenset[str]] = {}
        for index, field in enumerate(self.schema.fields):
            if field.visible_when is not None and field.id in self.conditions:
                deps[field.id] = references(
                    field.visible_when,
                    variables=frozenset(self.ids) - {field.id},
                    compiler=self.compiler,
                    where=self.where(index, "visible_when"),
                )
        for index, field in enumerate(self.schema.fields):
            cycle = cycle_through(field.id, deps)
            if cycle is not None:
                chain = " → ".join(f"`{i}`" for i in cycle)
                self.error(
                    index,
                    "visible_when",
                    "visibility_cycle",
                    f"Visibility depends on itself through {chain}.",
                )
        return deps


def _check(schema: FormSchema, compiler: ExpressionCompiler) -> CompiledForm:
    checker = _Checker(schema, compiler)
    checker.run()
    deps = checker.dependencies()
    if checker.errors:
        raise ValidationFailed(
            "The form schema is invalid",
            errors=checker.errors,
            form=f"{schema.key}@{schema.version}",
        )
    fields = {f.id: f for f in schema.fields}
    return CompiledForm(
        schema=schema,
        checksum=form_checksum(schema),
        fields=fields,
        patterns=checker.patterns,
        conditions=checker.conditions,
        defaults={i: checker.defaults.get(i) for i in fields},
        order=evaluation_order(checker.ids, deps),
    )


def compile_form(schema: FormSchema, compiler: ExpressionCompiler) -> CompiledForm:
    """Check ``schema`` (all errors at once) and keep what validating submissions needs.

    Raises :class:`ValidationFailed`. Cache the result per ``(key, version)``: a published
    version never changes.
    """
    return _check(schema, compiler)


def parse_form(
    data: bytes | str | Mapping[str, Any], *, compiler: ExpressionCompiler
) -> FormSchema:
    """Decode and check a form schema, returning it with every ``default`` normalised.

    Raises :class:`ValidationFailed`: a shape error (msgspec stops at the first) has one
    :class:`FieldError`; semantic errors are all reported together. Normalising defaults
    (``"10"`` → ``"10.00"`` for money) makes equal forms checksum equally.
    """
    compiled = _check(_decode(data), compiler)
    replace: Callable[..., Field] = msgspec.structs.replace
    fields = tuple(
        replace(f, default=compiled.defaults[f.id]) if f.default is not None else f
        for f in compiled.schema.fields
    )
    return msgspec.structs.replace(compiled.schema, fields=fields)
