"""The form schema format (format 1) as msgspec Structs.

The JSON document described in ``docs/forms.md`` is what modules register and what the engine
stores as an immutable form version, so these Structs *are* the schema: msgspec rejects unknown
attributes, wrong types and attributes that belong to another field type while decoding
(``options`` on a text field is an error, not silently ignored), and :mod:`.schema` adds the
checks a type cannot express (duplicate ids, ``min`` above ``max``, unsafe patterns, visibility
cycles). Everything is frozen so a published version can be cached and shared between threads.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Final, Literal, TypeAlias

import msgspec
from msgspec import Meta

FORMAT: Final = 1

MAX_FIELDS: Final = 200
TEXT_MAX_LENGTH: Final = 1000
"""Single-line text never exceeds this, which also bounds what a ``pattern`` is matched on."""
LONG_TEXT_MAX_LENGTH: Final = 100_000
EMAIL_MAX_LENGTH: Final = 254
"""RFC 5321 path limit minus the angle brackets."""
MAX_FILE_SIZE: Final = 1024 * 1024 * 1024
MAX_OPTIONS: Final = 500

Identifier = Annotated[str, Meta(pattern=r"^[a-z][a-z0-9_]*$", max_length=64)]
"""Field ids double as CEL variable names in ``visible_when`` and as keys of submitted data."""

DottedName = Annotated[str, Meta(pattern=r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$", max_length=100)]
"""Form keys follow the registered-name convention (``diario.review``)."""

DecimalText = Annotated[str, Meta(pattern=r"^-?[0-9]{1,18}(\.[0-9]{1,10})?$")]
"""Decimal bounds are written as strings so JSON never rounds them through a binary float."""

MimePattern = Annotated[
    str, Meta(pattern=r"^[a-z0-9][a-z0-9!#$&^_.+-]*/(\*|[a-z0-9][a-z0-9!#$&^_.+-]*)$")
]
"""``application/pdf`` or a family wildcard like ``image/*``; lowercase, without parameters."""

Label = Annotated[str, Meta(min_length=1, max_length=200)]
HelpText = Annotated[str, Meta(min_length=1, max_length=2000)]
Expression = Annotated[str, Meta(min_length=1, max_length=2000)]
Pattern = Annotated[str, Meta(min_length=1, max_length=200)]
Length = Annotated[int, Meta(ge=0)]
AwareDatetime = Annotated[datetime, Meta(tz=True)]


class _Strict(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Base for every part of a schema: immutable, keyword-only, unknown attributes rejected."""


class Option(_Strict, frozen=True, kw_only=True):
    """One choice of a select: ``value`` is what is submitted and stored, ``label`` is shown."""

    value: Annotated[str, Meta(min_length=1, max_length=100)]
    label: Label


class _FieldBase(_Strict, tag_field="type", frozen=True, kw_only=True):
    """Attributes every field type has; ``type`` is the msgspec tag that selects the subclass.

    ``default`` stays untyped here because its type depends on the field type; :mod:`.schema`
    validates it with the field's own rules and stores it normalised. ``personal`` marks LGPD
    personal data so :func:`.snapshot.redact` can mask it in logs and exports.
    """

    id: Identifier
    label: Label | None = None
    help: HelpText | None = None
    required: bool = False
    read_only: bool = False
    default: Any = None
    visible_when: Expression | None = None
    personal: bool = False


class TextField(_FieldBase, tag="text", frozen=True, kw_only=True):
    min_length: Length | None = None
    max_length: Annotated[int, Meta(ge=1, le=TEXT_MAX_LENGTH)] = 255
    pattern: Pattern | None = None


class LongTextField(_FieldBase, tag="long_text", frozen=True, kw_only=True):
    """Multi-line text; no ``pattern`` because matching 100 000 characters is not bounded."""

    min_length: Length | None = None
    max_length: Annotated[int, Meta(ge=1, le=LONG_TEXT_MAX_LENGTH)] = 10_000


class IntegerField(_FieldBase, tag="integer", frozen=True, kw_only=True):
    min: int | None = None
    max: int | None = None


class DecimalField(_FieldBase, tag="decimal", frozen=True, kw_only=True):
    min: DecimalText | None = None
    max: DecimalText | None = None
    decimal_places: Annotated[int, Meta(ge=0, le=10)] = 10


class MoneyField(_FieldBase, tag="money", frozen=True, kw_only=True):
    """Brazilian reais with exactly two decimal places, handled as ``Decimal`` end to end."""

    min: DecimalText | None = None
    max: DecimalText | None = None


class DateField(_FieldBase, tag="date", frozen=True, kw_only=True):
    min: date | None = None
    max: date | None = None


class DatetimeField(_FieldBase, tag="datetime", frozen=True, kw_only=True):
    min: AwareDatetime | None = None
    max: AwareDatetime | None = None


class SelectField(_FieldBase, tag="select", frozen=True, kw_only=True):
    options: Annotated[tuple[Option, ...], Meta(min_length=1, max_length=MAX_OPTIONS)]


class MultiSelectField(_FieldBase, tag="multi_select", frozen=True, kw_only=True):
    options: Annotated[tuple[Option, ...], Meta(min_length=1, max_length=MAX_OPTIONS)]
    min_selections: Length | None = None
    max_selections: Length | None = None


class BooleanField(_FieldBase, tag="boolean", frozen=True, kw_only=True):
    """``required`` on a boolean means it must be ``true`` (an "I declare..." checkbox)."""


class EmailField(_FieldBase, tag="email", frozen=True, kw_only=True):
    """An e-mail address is personal data unless the author says otherwise (institutional box)."""

    personal: bool = True
    max_length: Annotated[int, Meta(ge=6, le=EMAIL_MAX_LENGTH)] = EMAIL_MAX_LENGTH
    pattern: Pattern | None = None


class CpfField(_FieldBase, tag="cpf", frozen=True, kw_only=True):
    """A CPF always identifies a person, so it is personal by default."""

    personal: bool = True


class CnpjField(_FieldBase, tag="cnpj", frozen=True, kw_only=True):
    pass


class FileField(_FieldBase, tag="file", frozen=True, kw_only=True):
    """A reference to an upload stored elsewhere; the form checks what the reference declares."""

    max_size: Annotated[int, Meta(ge=1, le=MAX_FILE_SIZE)]
    accept: Annotated[tuple[MimePattern, ...], Meta(min_length=1, max_length=50)]


Field: TypeAlias = (
    TextField
    | LongTextField
    | IntegerField
    | DecimalField
    | MoneyField
    | DateField
    | DatetimeField
    | SelectField
    | MultiSelectField
    | BooleanField
    | EmailField
    | CpfField
    | CnpjField
    | FileField
)

FIELD_TYPES: Final = (
    "text, long_text, integer, decimal, money, date, datetime, select, multi_select, boolean, "
    "email, cpf, cnpj, file"
)


class FormSchema(_Strict, frozen=True, kw_only=True):
    """One version of a form; ``fields`` order is the presentation order."""

    format: Literal[1]
    key: DottedName
    version: Annotated[int, Meta(ge=1)]
    title: Label
    description: HelpText | None = None
    fields: Annotated[tuple[Field, ...], Meta(min_length=1, max_length=MAX_FIELDS)]


class FileRef(_Strict, frozen=True, kw_only=True):
    """How a file field is submitted: the upload itself lives in the file store.

    ``size`` and ``content_type`` are what the upload service recorded; the caller is expected
    to resolve ``file_id`` against that store before trusting them (see ``docs/forms.md``).
    """

    file_id: Annotated[str, Meta(pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]*$", max_length=200)]
    name: Annotated[str, Meta(min_length=1, max_length=255)]
    size: Annotated[int, Meta(ge=0)]
    content_type: Annotated[str, Meta(min_length=3, max_length=255)]


Value: TypeAlias = str | int | bool | tuple[str, ...] | FileRef | None
"""A clean value: JSON-exact (money and decimals are strings, dates ISO strings)."""


def field_type(field: Field) -> str:
    """The ``type`` tag of a field, as written in the JSON."""
    tag = type(field).__struct_config__.tag
    assert isinstance(tag, str)
    return tag
