"""Check and normalise one submitted value against its field, with a message for the person.

Citizens and clerks read these messages, so they are in Portuguese; the ``code`` next to each
is English and stable, for clients and tests. Messages never repeat the submitted value: it may
be personal data and errors end up in logs. Clean values are JSON-exact — money and decimals
travel as strings (a float would round ``0.1``), dates as ISO strings, CPF and CNPJ as their
bare characters — so a stored snapshot reads back exactly as it was accepted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any, Final

import msgspec

from .documents import DocumentError, normalize_cnpj, normalize_cpf
from .model import (
    BooleanField,
    CnpjField,
    CpfField,
    DateField,
    DatetimeField,
    DecimalField,
    EmailField,
    Field,
    FileField,
    FileRef,
    IntegerField,
    LongTextField,
    MoneyField,
    MultiSelectField,
    SelectField,
    TextField,
    Value,
)

INT_LIMIT: Final = 2**63 - 1
"""Integers fit a PostgreSQL ``bigint`` and a CEL ``int``."""

_INT: Final = re.compile(r"^[+-]?[0-9]{1,19}$")
_DECIMAL: Final = re.compile(r"^[+-]?([0-9]{1,18})(?:\.([0-9]{1,10}))?$")
_DATE: Final = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
_DATETIME: Final = re.compile(
    r"^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2}):([0-9]{2})"
    r"(?:\.([0-9]{1,9}))?(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))$"
)
_CONTROL: Final = re.compile(r"[\x00-\x08\x0a-\x1f\x7f\ud800-\udfff]")
_CONTROL_MULTILINE: Final = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")
"""Control characters and lone surrogates: NUL and surrogates cannot even be stored in
PostgreSQL text, and the others only ever arrive by accident or malice."""
_ATOM: Final = re.compile(r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+$")
_LABEL: Final = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")
_TLD: Final = re.compile(r"^(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$", re.IGNORECASE)
_CENT: Final = Decimal("0.01")


class Invalid(Exception):
    """A value is refused: ``code`` for machines, ``message`` (Portuguese) for the person."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code)
        self.code = code
        self.message = message


def is_empty(field: Field, raw: object) -> bool:
    """Input that means "left empty": ``null``, blank text, an empty list of choices."""
    if raw is None:
        return True
    if isinstance(raw, str):
        return raw.strip() == ""
    return isinstance(field, MultiSelectField) and isinstance(raw, list | tuple) and not raw


def _text(raw: object, *, what: str) -> str:
    if not isinstance(raw, str):
        raise Invalid("wrong_type", f"Informe {what}.")
    return raw.strip()


def _length(text: str, low: int | None, high: int) -> None:
    if low is not None and len(text) < low:
        raise Invalid("too_short", f"Informe pelo menos {low} caracteres.")
    if len(text) > high:
        raise Invalid("too_long", f"Informe no máximo {high} caracteres.")


def _match(pattern: re.Pattern[str] | None, text: str) -> None:
    if pattern is not None and pattern.fullmatch(text) is None:
        raise Invalid("pattern_mismatch", "O valor não está no formato esperado.")


def _bounds(value: Any, low: Any, high: Any, show: Callable[[Any], str] = str) -> None:
    """``show`` writes a bound the way the person reads it (``R$ 1.000,00``, ``31/01/2026``)."""
    if low is not None and value < low:
        raise Invalid("below_min", f"O valor deve ser no mínimo {show(low)}.")
    if high is not None and value > high:
        raise Invalid("above_max", f"O valor deve ser no máximo {show(high)}.")


def brl(amount: Decimal) -> str:
    """``Decimal('1234.5')`` → ``R$ 1.234,50``: how a Brazilian reads an amount."""
    text = f"{amount:,.2f}"
    return "R$ " + text.replace(",", "_").replace(".", ",").replace("_", ".")


def _decimal(raw: object, places: int) -> Decimal:
    if isinstance(raw, bool) or not isinstance(raw, str | int | float):
        raise Invalid("wrong_type", "Informe um número, como 1234.56.")
    text = raw.strip() if isinstance(raw, str) else str(raw)
    match = _DECIMAL.fullmatch(text)
    if match is None:
        raise Invalid("invalid_number", "Informe um número com ponto decimal, como 1234.56.")
    if len(match.group(2) or "") > places:
        raise Invalid("too_many_decimal_places", f"Use no máximo {places} casas decimais.")
    value = Decimal(text)
    return abs(value) if value == 0 else value


def _datetime(text: str) -> datetime:
    match = _DATETIME.fullmatch(text)
    if match is None:
        raise ValueError(text)
    year, month, day, hour, minute, second, fraction, zulu, sign, oh, om = match.groups()
    if zulu:
        tz: timezone = UTC
    else:
        offset = timedelta(hours=int(oh), minutes=int(om))
        if offset >= timedelta(hours=24) or int(om) > 59:
            raise ValueError(text)
        tz = timezone(-offset if sign == "-" else offset)
    micro = int((fraction or "0").ljust(6, "0")[:6])
    return datetime(
        int(year), int(month), int(day), int(hour), int(minute), int(second), micro, tzinfo=tz
    )


def _email(text: str) -> str:
    local, at, domain = text.rpartition("@")
    labels = domain.split(".")
    valid = (
        bool(at)
        and 1 <= len(local) <= 64
        and all(_ATOM.fullmatch(atom) for atom in local.split("."))
        and len(labels) >= 2
        and all(_LABEL.fullmatch(label) for label in labels)
        and _TLD.fullmatch(labels[-1]) is not None
    )
    if not valid:
        raise Invalid(
            "invalid_email", "Informe um endereço de e-mail válido, como nome@exemplo.br."
        )
    return f"{local}@{domain.lower()}"


def human_size(size: int) -> str:
    """``5242880`` → ``5 MB`` (binary units, decimal comma)."""
    for unit, scale in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if size >= scale:
            return f"{size / scale:.1f}".removesuffix(".0").replace(".", ",") + f" {unit}"
    return f"{size} bytes"


def _mime_accepted(content_type: str, accept: tuple[str, ...]) -> bool:
    family = content_type.split("/", 1)[0]
    return any(p == content_type or p == f"{family}/*" for p in accept)


def _file(field: FileField, raw: object) -> FileRef:
    if not isinstance(raw, Mapping):
        raise Invalid("wrong_type", "Envie a referência do arquivo carregado.")
    try:
        ref = msgspec.convert(raw, FileRef)
    except msgspec.ValidationError:
        raise Invalid(
            "invalid_file_reference",
            "A referência do arquivo deve ter file_id, name, size e content_type válidos.",
        ) from None
    if _CONTROL.search(ref.name) or "/" in ref.name or "\\" in ref.name:
        raise Invalid("invalid_file_name", "O nome do arquivo contém caracteres não permitidos.")
    if ref.size == 0:
        raise Invalid("empty_file", "O arquivo está vazio.")
    if ref.size > field.max_size:
        limit = human_size(field.max_size)
        raise Invalid("file_too_large", f"O arquivo excede o tamanho máximo de {limit}.")
    content_type = ref.content_type.split(";", 1)[0].strip().lower()
    if not _mime_accepted(content_type, field.accept):
        allowed = ", ".join(field.accept)
        raise Invalid("file_type_not_allowed", f"Tipo de arquivo não aceito; envie: {allowed}.")
    return msgspec.structs.replace(ref, content_type=content_type)


def _choices(field: MultiSelectField, raw: object) -> tuple[str, ...]:
    if not isinstance(raw, list | tuple) or not all(isinstance(v, str) for v in raw):
        raise Invalid("wrong_type", "Envie a lista das opções escolhidas.")
    order = {option.value: i for i, option in enumerate(field.options)}
    if any(v not in order for v in raw):
        raise Invalid("invalid_option", "Escolha somente entre as opções disponíveis.")
    if len(set(raw)) != len(raw):
        raise Invalid("duplicate_option", "Cada opção só pode ser escolhida uma vez.")
    low, high = field.min_selections, field.max_selections
    if low is not None and len(raw) < low:
        raise Invalid("too_few_selections", f"Escolha pelo menos {low} opções.")
    if high is not None and len(raw) > high:
        raise Invalid("too_many_selections", f"Escolha no máximo {high} opções.")
    return tuple(sorted(raw, key=order.__getitem__))


def clean_value(field: Field, raw: object, pattern: re.Pattern[str] | None = None) -> Value:
    """The normalised value of a non-empty ``raw`` (see :func:`is_empty`), or :class:`Invalid`.

    ``pattern`` is the field's compiled ``pattern`` (compiled once per form, see :mod:`.schema`).
    Lengths are checked before the pattern so it never runs on more than ``max_length``
    characters, which is what keeps its matching time bounded.
    """
    if isinstance(field, TextField):
        text = _text(raw, what="um texto")
        if _CONTROL.search(text):
            raise Invalid("invalid_characters", "O texto contém caracteres não permitidos.")
        _length(text, field.min_length, field.max_length)
        _match(pattern, text)
        return text
    if isinstance(field, LongTextField):
        text = _text(raw, what="um texto").replace("\r\n", "\n").replace("\r", "\n")
        if _CONTROL_MULTILINE.search(text):
            raise Invalid("invalid_characters", "O texto contém caracteres não permitidos.")
        _length(text, field.min_length, field.max_length)
        return text
    if isinstance(field, IntegerField):
        if isinstance(raw, bool) or not isinstance(raw, int | str):
            raise Invalid("wrong_type", "Informe um número inteiro, como 42.")
        if isinstance(raw, str) and not _INT.fullmatch(raw.strip()):
            raise Invalid("invalid_number", "Informe um número inteiro, como 42.")
        number = int(raw.strip()) if isinstance(raw, str) else raw
        if abs(number) > INT_LIMIT:
            raise Invalid("out_of_range", "O número é grande demais.")
        _bounds(number, field.min, field.max)
        return number
    if isinstance(field, DecimalField):
        amount = _decimal(raw, field.decimal_places)
        low, high = (None if b is None else Decimal(b) for b in (field.min, field.max))
        _bounds(amount, low, high)
        return format(amount, "f")
    if isinstance(field, MoneyField):
        amount = _decimal(raw, 2).quantize(_CENT)
        low, high = (None if b is None else Decimal(b) for b in (field.min, field.max))
        _bounds(amount, low, high, brl)
        return format(amount, "f")
    if isinstance(field, DateField):
        text = _text(raw, what="uma data, como 2026-01-31")
        try:
            day = date.fromisoformat(text) if _DATE.fullmatch(text) else None
        except ValueError:
            day = None
        if day is None:
            raise Invalid("invalid_date", "Informe uma data válida no formato AAAA-MM-DD.")
        _bounds(day, field.min, field.max, "{:%d/%m/%Y}".format)
        return day.isoformat()
    if isinstance(field, DatetimeField):
        text = _text(raw, what="data e hora, como 2026-01-31T14:30:00-03:00")
        try:
            moment = _datetime(text)
        except ValueError:
            raise Invalid(
                "invalid_datetime",
                "Informe data e hora com fuso horário, como 2026-01-31T14:30:00-03:00.",
            ) from None
        _bounds(moment, field.min, field.max, "{:%d/%m/%Y %H:%M:%S %z}".format)
        return moment.isoformat()
    if isinstance(field, SelectField):
        if not isinstance(raw, str):
            raise Invalid("wrong_type", "Escolha uma das opções disponíveis.")
        if raw not in {option.value for option in field.options}:
            raise Invalid("invalid_option", "Escolha uma das opções disponíveis.")
        return raw
    if isinstance(field, MultiSelectField):
        return _choices(field, raw)
    if isinstance(field, BooleanField):
        if not isinstance(raw, bool):
            raise Invalid("wrong_type", "Informe verdadeiro ou falso.")
        return raw
    if isinstance(field, EmailField):
        text = _text(raw, what="um endereço de e-mail")
        _length(text, None, field.max_length)
        email = _email(text)
        _match(pattern, email)
        return email
    if isinstance(field, CpfField | CnpjField):
        kind = "CPF" if isinstance(field, CpfField) else "CNPJ"
        text = _text(raw, what=f"o {kind} como texto")
        try:
            return normalize_cpf(text) if kind == "CPF" else normalize_cnpj(text)
        except DocumentError as exc:
            raise Invalid(exc.code, _DOCUMENT_MESSAGES[kind][exc.code]) from None
    return _file(field, raw)


_DOCUMENT_MESSAGES: Final = {
    "CPF": {
        "invalid_format": "Informe um CPF com 11 dígitos, como 000.000.000-00.",
        "repeated_digits": "CPF inválido.",
        "invalid_check_digits": "CPF inválido: os dígitos verificadores não conferem.",
    },
    "CNPJ": {
        "invalid_format": "Informe um CNPJ com 14 caracteres, como 00.000.000/0000-00.",
        "repeated_digits": "CNPJ inválido.",
        "invalid_check_digits": "CNPJ inválido: os dígitos verificadores não conferem.",
    },
}
