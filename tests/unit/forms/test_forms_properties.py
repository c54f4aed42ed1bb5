"""Properties: any input is either accepted or refused with ValidationFailed; valid input passes.

The kitchen-sink form has every field type with constraints and a conditional field, so random
JSON exercises every cleaning path. Accepted values are a fixed point: validating the clean
values again yields them unchanged, which is what lets a snapshot be re-checked later.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

from formkit import COMPILER, cnpj_from, cpf_from
from hypothesis import given, settings
from hypothesis import strategies as st

from contracts.errors import ValidationFailed
from services.workflow.forms import compile_form, parse_form, validate_compiled
from services.workflow.forms.documents import format_cnpj, format_cpf

OPTIONS = [{"value": v, "label": v.upper()} for v in ("a", "b", "c", "d")]
SINK = compile_form(
    parse_form(
        {
            "format": 1,
            "key": "test.sink",
            "version": 1,
            "title": "Todos os tipos",
            "fields": [
                {"id": "name", "type": "text", "min_length": 2, "max_length": 40},
                {"id": "plate", "type": "text", "pattern": r"[A-Z]{3}-\d{4}", "max_length": 8},
                {"id": "story", "type": "long_text", "max_length": 300},
                {"id": "count", "type": "integer", "min": -5, "max": 500},
                {"id": "ratio", "type": "decimal", "decimal_places": 4, "min": "-1", "max": "1"},
                {"id": "amount", "type": "money", "min": "0", "max": "1000000.00"},
                {"id": "day", "type": "date", "min": "2000-01-01", "max": "2099-12-31"},
                {"id": "moment", "type": "datetime"},
                {"id": "kind", "type": "select", "options": OPTIONS},
                {"id": "tags", "type": "multi_select", "options": OPTIONS, "max_selections": 3},
                {"id": "agree", "type": "boolean"},
                {"id": "email", "type": "email"},
                {"id": "cpf", "type": "cpf"},
                {"id": "cnpj", "type": "cnpj"},
                {
                    "id": "doc",
                    "type": "file",
                    "max_size": 4096,
                    "accept": ["application/pdf", "image/*"],
                },
                {
                    "id": "why",
                    "type": "text",
                    "required": True,
                    "visible_when": "amount != null && amount > 500000.0",
                },
            ],
        },
        compiler=COMPILER,
    ),
    COMPILER,
)
IDS = list(SINK.fields)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
    | st.sampled_from(["", " ", "2026-01-31", "a", "10.00", "529.982.247-25", "1e9"]),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=6,
)
keys = st.sampled_from(IDS) | st.text(max_size=20) | st.just("x" * 70)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(keys, json_values, max_size=12))
def test_random_submissions_only_ever_raise_validation_failed(data: dict[str, Any]) -> None:
    try:
        clean = validate_compiled(SINK, data)
    except ValidationFailed as exc:
        assert exc.errors
        for error in exc.errors:
            assert error.path == "submission" or error.path in data or error.path in IDS
            assert error.code and error.message
    else:
        assert set(clean.as_dict()) | set(clean.hidden) == set(IDS)


offsets = st.integers(min_value=-(23 * 60 + 59), max_value=23 * 60 + 59).map(
    lambda m: timezone(timedelta(minutes=m))
)
digits9 = st.from_regex(r"[0-9]{9}", fullmatch=True).filter(lambda s: len(set(s)) > 1)
alnum12 = st.from_regex(r"[0-9A-Z]{12}", fullmatch=True).filter(lambda s: len(set(s)) > 1)
money = st.decimals(min_value=0, max_value=Decimal("1000000.00"), places=2)

valid_values = st.fixed_dictionaries(
    {
        "name": st.text(
            alphabet=st.characters(
                codec="utf-8", exclude_categories=("Cc", "Cs", "Zs", "Zl", "Zp")
            ),
            min_size=2,
            max_size=40,
        ),
        "plate": st.from_regex(r"[A-Z]{3}-[0-9]{4}", fullmatch=True),
        "story": st.text(alphabet="abc \n\t\r", max_size=150),
        "count": st.integers(min_value=-5, max_value=500),
        "ratio": st.decimals(min_value=-1, max_value=1, places=4).map(lambda d: format(d, "f")),
        "amount": money.map(str),
        "day": st.dates(date(2000, 1, 1), date(2099, 12, 31)).map(date.isoformat),
        "moment": st.datetimes(
            min_value=datetime(1900, 1, 2), max_value=datetime(9998, 12, 30), timezones=offsets
        ).map(datetime.isoformat),
        "kind": st.sampled_from("abcd"),
        "tags": st.lists(st.sampled_from("abcd"), unique=True, max_size=3),
        "agree": st.booleans(),
        "email": st.emails().filter(lambda e: len(e) <= 254),
        "cpf": st.tuples(digits9.map(cpf_from), st.booleans()).map(
            lambda t: format_cpf(t[0]) if t[1] else t[0]
        ),
        "cnpj": st.tuples(alnum12.map(cnpj_from), st.booleans()).map(
            lambda t: format_cnpj(t[0]) if t[1] else t[0].lower()
        ),
        "doc": st.fixed_dictionaries(
            {
                "file_id": st.from_regex(r"[a-z0-9]{1,20}", fullmatch=True),
                "name": st.from_regex(r"[a-z]{1,10}\.(pdf|png)", fullmatch=True),
                "size": st.integers(min_value=1, max_value=4096),
                "content_type": st.sampled_from(["application/pdf", "image/png", "image/jpeg"]),
            }
        ),
        "why": st.from_regex(r"[a-z]{1,20}", fullmatch=True),
    }
)


@settings(max_examples=100, deadline=None)
@given(valid_values)
def test_valid_generated_values_are_accepted_and_clean_values_are_a_fixed_point(
    data: dict[str, Any],
) -> None:
    clean = validate_compiled(SINK, data)
    assert ("why" in clean.hidden) == (Decimal(data["amount"]) <= 500000)
    again = validate_compiled(
        SINK, {**clean.as_dict(), **({"why": "x"} if "why" in clean.hidden else {})}
    )
    assert again.answers == clean.answers
