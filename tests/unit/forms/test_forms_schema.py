"""Schema parsing and publish-time checks: shapes from msgspec, semantics all at once."""

from __future__ import annotations

import json
from typing import Any

import pytest
from formkit import COMPILER, REVIEW, review_doc

from contracts.errors import BadRequest, Conflict, FieldError, ValidationFailed
from services.workflow.forms import (
    FormRef,
    canonical_json,
    compile_form,
    field_type,
    form_checksum,
    is_new_version,
    parse_form,
    parse_form_ref,
)

OPTIONS = [{"value": "a", "label": "A"}, {"value": "b", "label": "B"}]


def _doc(*fields: dict[str, Any]) -> dict[str, Any]:
    return {"format": 1, "key": "t.f", "version": 1, "title": "T", "fields": list(fields)}


def _errors(doc: Any) -> list[FieldError]:
    with pytest.raises(ValidationFailed) as info:
        parse_form(doc, compiler=COMPILER)
    return list(info.value.errors)


def _one(doc: Any) -> FieldError:
    [error] = _errors(doc)
    return error


def test_the_documented_example_parses() -> None:
    schema = parse_form(REVIEW, compiler=COMPILER)
    assert [field_type(f) for f in schema.fields] == [
        "select",
        "long_text",
        "cpf",
        "money",
        "file",
    ]


def test_bytes_str_and_mappings_parse_alike() -> None:
    text = json.dumps(REVIEW)
    schemas = [parse_form(d, compiler=COMPILER) for d in (REVIEW, text, text.encode())]
    assert len({form_checksum(s) for s in schemas}) == 1


def test_cpf_and_email_are_personal_unless_the_author_says_otherwise() -> None:
    schema = parse_form(
        _doc(
            {"id": "cpf", "type": "cpf"},
            {"id": "email", "type": "email"},
            {"id": "box", "type": "email", "personal": False},
            {"id": "name", "type": "text"},
        ),
        compiler=COMPILER,
    )
    assert [f.personal for f in schema.fields] == [True, True, False, False]


def test_defaults_are_stored_normalised() -> None:
    schema = parse_form(
        _doc(
            {"id": "amount", "type": "money", "default": "10"},
            {"id": "tags", "type": "multi_select", "options": OPTIONS, "default": ["b", "a"]},
            {"id": "note", "type": "text", "default": "  "},
        ),
        compiler=COMPILER,
    )
    assert [f.default for f in schema.fields] == ["10.00", ("a", "b"), None]


def test_checksum_ignores_key_order_and_whitespace() -> None:
    shuffled = json.loads(json.dumps(REVIEW, sort_keys=True, indent=4))
    shuffled["fields"] = [dict(reversed(list(f.items()))) for f in shuffled["fields"]]
    first = parse_form(REVIEW, compiler=COMPILER)
    second = parse_form(shuffled, compiler=COMPILER)
    assert form_checksum(first) == form_checksum(second)
    assert canonical_json(first) == canonical_json(second)


def test_checksum_changes_with_any_content_change() -> None:
    changed = review_doc(title="Outra revisão")
    first = form_checksum(parse_form(REVIEW, compiler=COMPILER))
    assert first != form_checksum(parse_form(changed, compiler=COMPILER))


def test_checksum_writes_defaults_out() -> None:
    explicit = review_doc()
    explicit["fields"][0]["read_only"] = False
    first = form_checksum(parse_form(REVIEW, compiler=COMPILER))
    assert first == form_checksum(parse_form(explicit, compiler=COMPILER))
    assert b'"read_only":false' in canonical_json(parse_form(REVIEW, compiler=COMPILER))


def test_checksum_is_pinned() -> None:
    # The canonical form is what snapshots point at; this changes only on purpose.
    assert form_checksum(parse_form(REVIEW, compiler=COMPILER)) == (
        "9d8328658d224294f18f4a20758061fecda9dc657bc8e72c2f000be7cd266a0a"
    )


def test_malformed_json_is_one_error() -> None:
    error = _one(b"{not json")
    assert (error.path, error.code) == ("form", "malformed_json")


@pytest.mark.parametrize(
    ("field", "path", "code"),
    [
        ({"id": "x", "type": "color"}, "fields[0] (x).type", "invalid_value"),
        ({"id": "x", "type": "text", "options": OPTIONS}, "fields[0] (x).options", "unknown_field"),
        ({"type": "text"}, "fields[0].id", "missing_field"),
        ({"id": "Bad-Id", "type": "text"}, "fields[0] (Bad-Id).id", "invalid_format"),
        ({"id": "x", "type": "text", "max_length": "9"}, "fields[0] (x).max_length", "wrong_type"),
        (
            {"id": "x", "type": "text", "max_length": 5000},
            "fields[0] (x).max_length",
            "out_of_range",
        ),
        ({"id": "x", "type": "select", "options": []}, "fields[0] (x).options", "invalid_length"),
        ({"id": "x", "type": "money", "min": 0}, "fields[0] (x).min", "wrong_type"),
        ({"id": "x", "type": "money", "min": "1e3"}, "fields[0] (x).min", "invalid_format"),
        ({"id": "x", "type": "file", "max_size": 10}, "fields[0] (x).accept", "missing_field"),
        (
            {"id": "x", "type": "file", "max_size": 10, "accept": ["PDF"]},
            "fields[0] (x).accept[0]",
            "invalid_format",
        ),
        (
            {"id": "x", "type": "datetime", "min": "2026-01-01T00:00:00"},
            "fields[0] (x).min",
            "invalid_format",
        ),
    ],
)
def test_shape_errors_name_the_field_by_id(field: dict[str, Any], path: str, code: str) -> None:
    error = _one(_doc(field))
    assert (error.path, error.code) == (path, code)
    assert error.message.endswith(".")


def test_format_other_than_1_is_refused() -> None:
    error = _one({**_doc({"id": "x", "type": "text"}), "format": 2})
    assert (error.path, error.code) == ("format", "invalid_value")


def test_a_form_needs_fields() -> None:
    assert _one(_doc()).code == "invalid_length"


@pytest.mark.parametrize(
    ("field", "attr", "code"),
    [
        ({"type": "integer", "min": 5, "max": 1}, "min", "min_greater_than_max"),
        ({"type": "decimal", "min": "5.5", "max": "5.4"}, "min", "min_greater_than_max"),
        ({"type": "money", "min": "10", "max": "9.99"}, "min", "min_greater_than_max"),
        ({"type": "money", "max": "9.999"}, "max", "too_many_decimal_places"),
        ({"type": "decimal", "decimal_places": 1, "min": "0.05"}, "min", "too_many_decimal_places"),
        ({"type": "date", "min": "2026-02-01", "max": "2026-01-01"}, "min", "min_greater_than_max"),
        (
            {"type": "datetime", "min": "2026-01-01T01:00:00Z", "max": "2026-01-01T00:00:00Z"},
            "min",
            "min_greater_than_max",
        ),
        ({"type": "text", "min_length": 9, "max_length": 3}, "min_length", "min_greater_than_max"),
        (
            {"type": "long_text", "min_length": 90, "max_length": 3},
            "min_length",
            "min_greater_than_max",
        ),
        (
            {"type": "multi_select", "options": OPTIONS, "min_selections": 2, "max_selections": 1},
            "min_selections",
            "min_greater_than_max",
        ),
        (
            {"type": "multi_select", "options": OPTIONS, "max_selections": 3},
            "max_selections",
            "exceeds_options",
        ),
        (
            {"type": "select", "options": [*OPTIONS, {"value": "a", "label": "A de novo"}]},
            "options[2].value",
            "duplicate_option",
        ),
        ({"type": "text", "pattern": "[a-z"}, "pattern", "unsafe_pattern"),
        ({"type": "text", "pattern": r"(\w+)+$"}, "pattern", "unsafe_pattern"),
        ({"type": "money", "default": "abc"}, "default", "invalid_default"),
        ({"type": "money", "min": "1", "default": "0.50"}, "default", "invalid_default"),
        ({"type": "select", "options": OPTIONS, "default": "z"}, "default", "invalid_default"),
        ({"type": "cpf", "default": "111.111.111-11"}, "default", "invalid_default"),
        (
            {"type": "file", "max_size": 9, "accept": ["a/b"], "default": {}},
            "default",
            "default_not_allowed",
        ),
    ],
)
def test_semantic_errors_point_at_the_attribute(
    field: dict[str, Any], attr: str, code: str
) -> None:
    error = _one(_doc({"id": "x", **field}))
    assert (error.path, error.code) == (f"fields[0] (x).{attr}", code)


def test_duplicate_ids_are_refused() -> None:
    error = _one(_doc({"id": "x", "type": "text"}, {"id": "x", "type": "integer"}))
    assert (error.path, error.code) == ("fields[1] (x).id", "duplicate_id")


def test_cel_reserved_words_are_not_field_ids() -> None:
    error = _one(_doc({"id": "in", "type": "text"}))
    assert (error.path, error.code) == ("fields[0] (in).id", "reserved_id")


def test_visible_when_may_only_name_other_fields() -> None:
    error = _one(_doc({"id": "a", "type": "text", "visible_when": "ghost == 1"}))
    assert (error.path, error.code) == ("fields[0] (a).visible_when", "invalid_expression")
    assert "ghost" in error.message


def test_visible_when_must_compile() -> None:
    error = _one(
        _doc({"id": "a", "type": "text"}, {"id": "b", "type": "text", "visible_when": "a =="})
    )
    assert (error.path, error.code) == ("fields[1] (b).visible_when", "invalid_expression")


def test_visibility_cannot_depend_on_the_field_itself() -> None:
    error = _one(_doc({"id": "a", "type": "text", "visible_when": "a != ''"}))
    assert (error.path, error.code) == ("fields[0] (a).visible_when", "self_reference")


def test_visibility_cycles_are_refused_on_every_field_in_them() -> None:
    errors = _errors(
        _doc(
            {"id": "a", "type": "boolean", "visible_when": "c == true"},
            {"id": "b", "type": "boolean", "visible_when": "a == true"},
            {"id": "c", "type": "boolean", "visible_when": "b == true"},
            {"id": "d", "type": "boolean", "visible_when": "a == true"},
        )
    )
    assert [(e.path, e.code) for e in errors] == [
        ("fields[0] (a).visible_when", "visibility_cycle"),
        ("fields[1] (b).visible_when", "visibility_cycle"),
        ("fields[2] (c).visible_when", "visibility_cycle"),
    ]
    assert "`a` → `c` → `b` → `a`" in errors[0].message


def test_a_name_inside_a_string_literal_is_not_a_dependency() -> None:
    # `'c'` is text, not the field c: otherwise a -> c -> a would be reported as a cycle.
    schema = parse_form(
        _doc(
            {"id": "a", "type": "text", "visible_when": "b == 'c'"},
            {"id": "b", "type": "text"},
            {"id": "c", "type": "text", "visible_when": "a == 'z'"},
        ),
        compiler=COMPILER,
    )
    assert compile_form(schema, COMPILER).order == ("b", "a", "c")


def test_every_semantic_error_is_reported_at_once() -> None:
    errors = _errors(
        _doc(
            {"id": "x", "type": "integer", "min": 3, "max": 1},
            {"id": "x", "type": "text", "pattern": "("},
            {"id": "y", "type": "money", "default": "no"},
            {"id": "p", "type": "boolean", "visible_when": "p == true"},
            {"id": "q", "type": "boolean", "visible_when": "r == true"},
            {"id": "r", "type": "boolean", "visible_when": "q == true"},
        )
    )
    assert [e.code for e in errors] == [
        "min_greater_than_max",
        "duplicate_id",
        "unsafe_pattern",
        "invalid_default",
        "self_reference",
        "visibility_cycle",
        "visibility_cycle",
    ]


def test_compiled_form_orders_visibility_after_dependencies() -> None:
    schema = parse_form(
        _doc(
            {"id": "c", "type": "text", "visible_when": "b == 'x'"},
            {"id": "b", "type": "text", "visible_when": "a == true"},
            {"id": "a", "type": "boolean"},
        ),
        compiler=COMPILER,
    )
    assert compile_form(schema, COMPILER).order == ("a", "b", "c")


def test_form_references_parse_with_and_without_version() -> None:
    assert parse_form_ref("diario.review@12") == FormRef(key="diario.review", version=12)
    assert parse_form_ref("diario.review") == FormRef(key="diario.review", version=None)
    assert str(FormRef(key="diario.review", version=3)) == "diario.review@3"
    assert str(FormRef(key="diario.review")) == "diario.review"


@pytest.mark.parametrize(
    "text", ["", "Diario", "diario@0", "diario@", "diario@1@2", "a@01", "x" * 200]
)
def test_malformed_form_references_are_bad_requests(text: str) -> None:
    with pytest.raises(BadRequest) as info:
        parse_form_ref(text)
    assert info.value.errors[0].path == "form"


def test_registering_the_same_version_again_is_a_no_op_and_a_new_one_is_stored() -> None:
    schema = parse_form(REVIEW, compiler=COMPILER)
    assert is_new_version(schema, None) is True
    assert is_new_version(schema, form_checksum(schema)) is False


def test_a_published_version_cannot_change() -> None:
    published = form_checksum(parse_form(REVIEW, compiler=COMPILER))
    changed = parse_form(review_doc(title="Mudou"), compiler=COMPILER)
    with pytest.raises(Conflict):
        is_new_version(changed, published)
