"""Every field type: valid values normalise, invalid values get their own code and message."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from formkit import ALNUM_CNPJ, COMPILER, PDF, VALID_CNPJ, VALID_CPF, form_of

from contracts.errors import ValidationFailed
from services.workflow.forms import FileRef, validate_submission
from services.workflow.forms.values import brl, human_size

OPTIONS = [{"value": "a", "label": "A"}, {"value": "b", "label": "B"}, {"value": "c", "label": "C"}]


def _accept(field: dict[str, Any], raw: object) -> object:
    schema = form_of({"id": "x", **field})
    return validate_submission(schema, {"x": raw}, compiler=COMPILER).as_dict()["x"]


def _refuse(field: dict[str, Any], raw: object) -> tuple[str, str]:
    schema = form_of({"id": "x", **field})
    with pytest.raises(ValidationFailed) as info:
        validate_submission(schema, {"x": raw}, compiler=COMPILER)
    [error] = info.value.errors
    assert error.path == "x"
    return error.code, error.message


VALID = [
    ({"type": "text"}, "  Maria da Silva  ", "Maria da Silva"),
    ({"type": "text", "min_length": 2, "max_length": 5}, "abcde", "abcde"),
    ({"type": "text", "pattern": r"\d{5}-\d{3}"}, "29010-935", "29010-935"),
    ({"type": "long_text"}, "linha 1\r\nlinha 2\tfim", "linha 1\nlinha 2\tfim"),
    ({"type": "integer"}, 42, 42),
    ({"type": "integer"}, " -7 ", -7),
    ({"type": "integer", "min": 1, "max": 10}, 10, 10),
    ({"type": "decimal"}, "1234.5670", "1234.5670"),
    ({"type": "decimal"}, "-0.00", "0.00"),
    ({"type": "decimal", "decimal_places": 2}, 3, "3"),
    ({"type": "decimal"}, 0.1, "0.1"),
    ({"type": "money"}, "10", "10.00"),
    ({"type": "money"}, "10.5", "10.50"),
    ({"type": "money", "min": "0", "max": "1000000.00"}, "1000000.00", "1000000.00"),
    ({"type": "date"}, "2026-02-28", "2026-02-28"),
    ({"type": "date", "min": "2026-01-01", "max": "2026-12-31"}, "2026-01-01", "2026-01-01"),
    ({"type": "datetime"}, "2026-01-31T14:30:00-03:00", "2026-01-31T14:30:00-03:00"),
    ({"type": "datetime"}, "2026-01-31T17:30:00Z", "2026-01-31T17:30:00+00:00"),
    ({"type": "datetime"}, "2026-01-31t17:30:00.123456789z", "2026-01-31T17:30:00.123456+00:00"),
    ({"type": "select", "options": OPTIONS}, "b", "b"),
    ({"type": "multi_select", "options": OPTIONS}, ["c", "a"], ["a", "c"]),
    ({"type": "boolean"}, False, False),
    ({"type": "boolean", "required": True}, True, True),
    (
        {"type": "email"},
        "Maria.Silva+diario@Camara.SP.gov.BR",
        "Maria.Silva+diario@camara.sp.gov.br",
    ),
    (
        {"type": "email", "pattern": r".+@camara\.sp\.gov\.br"},
        "a@camara.sp.gov.br",
        "a@camara.sp.gov.br",
    ),
    ({"type": "cpf"}, VALID_CPF, "52998224725"),
    ({"type": "cpf"}, "52998224725", "52998224725"),
    ({"type": "cnpj"}, VALID_CNPJ, "11222333000181"),
    ({"type": "cnpj"}, ALNUM_CNPJ.lower(), "12ABC34501DE35"),
    ({"type": "file", "max_size": 2048, "accept": ["application/pdf"]}, PDF, PDF),
    (
        {"type": "file", "max_size": 2048, "accept": ["image/*"]},
        {**PDF, "name": "foto.JPG", "content_type": "Image/JPEG; q=1"},
        {**PDF, "name": "foto.JPG", "content_type": "image/jpeg"},
    ),
]


@pytest.mark.parametrize(("field", "raw", "clean"), VALID)
def test_valid_values_are_accepted_and_normalised(
    field: dict[str, Any], raw: object, clean: object
) -> None:
    assert _accept(field, raw) == clean


INVALID = [
    ({"type": "text"}, 12, "wrong_type"),
    ({"type": "text"}, "a\nb", "invalid_characters"),
    ({"type": "text"}, "a\x00b", "invalid_characters"),
    ({"type": "text", "min_length": 3}, "ab", "too_short"),
    ({"type": "text", "max_length": 3}, "abcd", "too_long"),
    ({"type": "text", "pattern": r"\d{5}-\d{3}"}, "29010935", "pattern_mismatch"),
    ({"type": "long_text", "max_length": 3}, "a\r\nbc", "too_long"),
    ({"type": "long_text"}, "nul\x00", "invalid_characters"),
    ({"type": "long_text"}, "lone \ud800 surrogate", "invalid_characters"),
    ({"type": "integer"}, True, "wrong_type"),
    ({"type": "integer"}, 1.5, "wrong_type"),
    ({"type": "integer"}, "1e3", "invalid_number"),
    ({"type": "integer"}, 2**63, "out_of_range"),
    ({"type": "integer", "min": 1}, 0, "below_min"),
    ({"type": "integer", "max": 10}, 11, "above_max"),
    ({"type": "decimal"}, "1e5", "invalid_number"),
    ({"type": "decimal"}, "NaN", "invalid_number"),
    ({"type": "decimal"}, "1,50", "invalid_number"),
    ({"type": "decimal"}, False, "wrong_type"),
    ({"type": "decimal", "decimal_places": 1}, "1.25", "too_many_decimal_places"),
    ({"type": "decimal", "min": "1.5"}, "1.49", "below_min"),
    ({"type": "money"}, "10.555", "too_many_decimal_places"),
    ({"type": "money"}, float("inf"), "invalid_number"),
    ({"type": "money", "max": "1000000.00"}, "1000000.01", "above_max"),
    ({"type": "date"}, "31/01/2026", "invalid_date"),
    ({"type": "date"}, "2026-02-30", "invalid_date"),
    ({"type": "date"}, "20260131", "invalid_date"),
    ({"type": "date", "max": "2026-12-31"}, "2027-01-01", "above_max"),
    ({"type": "datetime"}, "2026-01-31T14:30:00", "invalid_datetime"),
    ({"type": "datetime"}, "2026-01-31T25:30:00Z", "invalid_datetime"),
    ({"type": "datetime"}, "2026-01-31T14:30:00+24:00", "invalid_datetime"),
    ({"type": "datetime", "min": "2026-01-01T00:00:00-03:00"}, "2026-01-01T02:59:59Z", "below_min"),
    ({"type": "select", "options": OPTIONS}, "z", "invalid_option"),
    ({"type": "select", "options": OPTIONS}, ["a"], "wrong_type"),
    ({"type": "multi_select", "options": OPTIONS}, "a", "wrong_type"),
    ({"type": "multi_select", "options": OPTIONS}, ["a", "z"], "invalid_option"),
    ({"type": "multi_select", "options": OPTIONS}, ["a", "a"], "duplicate_option"),
    (
        {"type": "multi_select", "options": OPTIONS, "min_selections": 2},
        ["a"],
        "too_few_selections",
    ),
    (
        {"type": "multi_select", "options": OPTIONS, "max_selections": 1},
        ["a", "b"],
        "too_many_selections",
    ),
    ({"type": "boolean"}, "true", "wrong_type"),
    ({"type": "boolean", "required": True}, False, "required"),
    ({"type": "email"}, "maria", "invalid_email"),
    ({"type": "email"}, "maria@localhost", "invalid_email"),
    ({"type": "email"}, "ma..ria@x.com.br", "invalid_email"),
    ({"type": "email"}, "maria@-x.com", "invalid_email"),
    ({"type": "email"}, "a@b@c.com", "invalid_email"),
    ({"type": "email"}, "a" * 250 + "@x.br", "too_long"),
    ({"type": "email", "pattern": r".+@camara\.sp\.gov\.br"}, "a@gmail.com", "pattern_mismatch"),
    ({"type": "cpf"}, "529.982.247-26", "invalid_check_digits"),
    ({"type": "cpf"}, "111.111.111-11", "repeated_digits"),
    ({"type": "cpf"}, "5299822472", "invalid_format"),
    ({"type": "cpf"}, 52998224725, "wrong_type"),
    ({"type": "cnpj"}, "11.222.333/0001-82", "invalid_check_digits"),
    ({"type": "cnpj"}, "00.000.000/0000-00", "repeated_digits"),
    ({"type": "cnpj"}, "12.ABC.345/01DE-3A", "invalid_format"),
    ({"type": "cnpj"}, "12.ABC.345/01DF-35", "invalid_check_digits"),
    ({"type": "file", "max_size": 1000, "accept": ["application/pdf"]}, PDF, "file_too_large"),
    ({"type": "file", "max_size": 2048, "accept": ["image/*"]}, PDF, "file_type_not_allowed"),
    (
        {"type": "file", "max_size": 2048, "accept": ["application/pdf"]},
        {**PDF, "size": 0},
        "empty_file",
    ),
    (
        {"type": "file", "max_size": 2048, "accept": ["application/pdf"]},
        {**PDF, "url": "x"},
        "invalid_file_reference",
    ),
    (
        {"type": "file", "max_size": 2048, "accept": ["application/pdf"]},
        {**PDF, "size": "1"},
        "invalid_file_reference",
    ),
    (
        {"type": "file", "max_size": 2048, "accept": ["application/pdf"]},
        {**PDF, "name": "../x.pdf"},
        "invalid_file_name",
    ),
    ({"type": "file", "max_size": 2048, "accept": ["application/pdf"]}, "up_01", "wrong_type"),
]


@pytest.mark.parametrize(("field", "raw", "code"), INVALID)
def test_invalid_values_are_refused_with_their_own_code(
    field: dict[str, Any], raw: object, code: str
) -> None:
    got, message = _refuse(field, raw)
    assert got == code
    assert message.endswith(".")


def test_messages_never_repeat_the_submitted_value() -> None:
    _code, message = _refuse({"type": "cpf"}, "529.982.247-26")
    assert "529" not in message
    _code, message = _refuse({"type": "email"}, "maria.secreta@")
    assert "secreta" not in message


def test_bounds_are_shown_the_way_a_brazilian_reads_them() -> None:
    _code, message = _refuse({"type": "money", "max": "1000000.00"}, "2000000")
    assert "R$ 1.000.000,00" in message
    _code, message = _refuse({"type": "date", "min": "2026-03-01"}, "2026-02-01")
    assert "01/03/2026" in message


def test_size_limits_are_shown_in_binary_units() -> None:
    assert human_size(5242880) == "5 MB"
    assert human_size(1536) == "1,5 KB"
    assert human_size(10) == "10 bytes"
    assert brl(Decimal("1234.5")) == "R$ 1.234,50"


def test_file_value_is_a_frozen_reference() -> None:
    schema = form_of({"id": "x", "type": "file", "max_size": 2048, "accept": ["application/pdf"]})
    clean = validate_submission(schema, {"x": PDF}, compiler=COMPILER)
    assert clean.answers[0].value == FileRef(**PDF)


@pytest.mark.parametrize(
    ("field", "empty"),
    [
        ({"type": "text"}, "   "),
        ({"type": "integer"}, ""),
        ({"type": "money"}, None),
        ({"type": "multi_select", "options": OPTIONS}, []),
        ({"type": "file", "max_size": 10, "accept": ["application/pdf"]}, None),
    ],
)
def test_empty_input_is_required_error_or_null(field: dict[str, Any], empty: object) -> None:
    assert _accept(field, empty) is None
    assert _refuse({**field, "required": True}, empty)[0] == "required"


def test_length_constraints_only_apply_to_a_value_that_was_given() -> None:
    assert _accept({"type": "text", "min_length": 3}, "") is None
    assert _accept({"type": "multi_select", "options": OPTIONS, "min_selections": 2}, []) is None
