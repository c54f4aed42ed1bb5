"""Submissions: visibility first, read-only and unknown fields, every error at once, atomically."""

from __future__ import annotations

from typing import Any

import pytest
from formkit import COMPILER, PDF, REVIEW, VALID_CPF, CelFormCompiler, form_of

from contracts.errors import FieldError, ValidationFailed
from services.workflow.forms import (
    CleanSubmission,
    compile_form,
    parse_form,
    validate_compiled,
    validate_submission,
)

REVIEW_FORM = compile_form(parse_form(REVIEW, compiler=COMPILER), COMPILER)


def _errors(form: Any, data: Any, **kw: Any) -> list[FieldError]:
    with pytest.raises(ValidationFailed) as info:
        validate_compiled(form, data, **kw)
    return list(info.value.errors)


def test_a_valid_review_is_accepted_with_normalised_values() -> None:
    data = {"decision": "reject", "reason": "Falta assinatura.", "cpf": VALID_CPF, "amount": "7"}
    clean = validate_compiled(REVIEW_FORM, {**data, "attachment": PDF})
    assert clean.as_dict() == {
        "decision": "reject",
        "reason": "Falta assinatura.",
        "cpf": "52998224725",
        "amount": "7.00",
        "attachment": PDF,
    }
    assert clean.hidden == ()
    assert (clean.form_key, clean.form_version) == ("diario.review", 1)
    assert clean.form_checksum == REVIEW_FORM.checksum


def test_a_hidden_required_field_is_not_required() -> None:
    clean = validate_compiled(REVIEW_FORM, {"decision": "approve"})
    assert "reason" not in clean.as_dict()
    assert clean.hidden == ("reason",)


def test_a_visible_required_field_is_required() -> None:
    errors = _errors(REVIEW_FORM, {"decision": "reject"})
    assert [(e.path, e.code) for e in errors] == [("reason", "required")]


def test_a_value_sent_for_a_hidden_field_is_dropped_not_stored() -> None:
    clean = validate_compiled(REVIEW_FORM, {"decision": "approve", "reason": "x" * 5000})
    assert "reason" not in clean.as_dict()


def test_optional_visible_fields_left_empty_are_recorded_as_null() -> None:
    clean = validate_compiled(REVIEW_FORM, {"decision": "approve"})
    assert clean.as_dict() == {
        "decision": "approve",
        "cpf": None,
        "amount": None,
        "attachment": None,
    }


def test_an_invalid_value_counts_as_null_for_other_fields_visibility() -> None:
    errors = _errors(REVIEW_FORM, {"decision": "rejeitar"})
    assert [(e.path, e.code) for e in errors] == [("decision", "invalid_option")]


def test_a_hidden_field_is_null_for_fields_that_depend_on_it() -> None:
    form = form_of(
        {
            "id": "kind",
            "type": "select",
            "options": [{"value": "pj", "label": "PJ"}, {"value": "pf", "label": "PF"}],
        },
        {"id": "has_partner", "type": "boolean", "visible_when": "kind == 'pj'"},
        {"id": "partner", "type": "text", "required": True, "visible_when": "has_partner == true"},
    )
    clean = validate_submission(form, {"kind": "pf", "has_partner": True}, compiler=COMPILER)
    assert clean.hidden == ("has_partner", "partner")
    errors = _errors(compile_form(form, COMPILER), {"kind": "pj", "has_partner": True})
    assert [(e.path, e.code) for e in errors] == [("partner", "required")]


def test_rules_see_money_as_a_number_and_selections_as_a_list() -> None:
    form = compile_form(
        form_of(
            {"id": "amount", "type": "money"},
            {"id": "tags", "type": "multi_select", "options": [{"value": "urgente", "label": "U"}]},
            {
                "id": "why",
                "type": "text",
                "required": True,
                "visible_when": "amount != null && amount > 1000.0",
            },
            {
                "id": "who",
                "type": "text",
                "required": True,
                "visible_when": "tags != null && 'urgente' in tags",
            },
        ),
        COMPILER,
    )
    assert validate_compiled(form, {"amount": "1000.00"}).hidden == ("why", "who")
    errors = _errors(form, {"amount": "1000.01", "tags": ["urgente"]})
    assert [e.path for e in errors] == ["why", "who"]


def test_a_rule_that_fails_to_evaluate_is_an_error_on_its_field() -> None:
    form = compile_form(
        form_of(
            {"id": "n", "type": "integer"}, {"id": "m", "type": "text", "visible_when": "n > 3"}
        ),
        COMPILER,
    )
    errors = _errors(form, {})
    assert [(e.path, e.code) for e in errors] == [("m", "visibility_failed")]


def test_a_rule_that_does_not_return_a_boolean_is_an_error_on_its_field() -> None:
    form = compile_form(
        form_of({"id": "n", "type": "integer"}, {"id": "m", "type": "text", "visible_when": "n"}),
        COMPILER,
    )
    assert [e.code for e in _errors(form, {"n": 1, "m": "x"})] == ["visibility_failed"]


def test_unknown_fields_are_refused() -> None:
    errors = _errors(REVIEW_FORM, {"decision": "approve", "bonus": 1})
    assert [(e.path, e.code) for e in errors] == [("bonus", "unknown_field")]


def test_unknown_keys_that_are_not_identifiers_are_not_echoed() -> None:
    errors = _errors(REVIEW_FORM, {"decision": "approve", "CPF 529.982.247-25": 1, 7: 1})
    assert [(e.path, e.code) for e in errors] == [
        ("submission", "unknown_field"),
        ("submission", "unknown_field"),
    ]


def test_a_submission_that_is_not_an_object_is_refused() -> None:
    assert [e.code for e in _errors(REVIEW_FORM, ["decision"])] == ["wrong_type"]


def test_every_invalid_field_gets_its_own_error_and_nothing_is_accepted() -> None:
    data = {
        "decision": "reject",
        "cpf": "529.982.247-26",
        "amount": "-1",
        "attachment": {**PDF, "content_type": "image/png"},
        "extra": True,
    }
    errors = _errors(REVIEW_FORM, data)
    assert [(e.path, e.code) for e in errors] == [
        ("reason", "required"),
        ("cpf", "invalid_check_digits"),
        ("amount", "below_min"),
        ("attachment", "file_type_not_allowed"),
        ("extra", "unknown_field"),
    ]
    assert len({e.message for e in errors}) == len(errors)


def test_the_error_names_the_form_version() -> None:
    with pytest.raises(ValidationFailed) as info:
        validate_compiled(REVIEW_FORM, {})
    assert info.value.to_problem()["form"] == "diario.review@1"
    assert info.value.status == 422


def test_absent_fields_take_their_default_but_null_clears_it() -> None:
    form = compile_form(form_of({"id": "qty", "type": "integer", "default": 1}), COMPILER)
    assert validate_compiled(form, {}).as_dict() == {"qty": 1}
    assert validate_compiled(form, {"qty": None}).as_dict() == {"qty": None}


def test_read_only_field_keeps_its_default() -> None:
    form = compile_form(
        form_of({"id": "origin", "type": "text", "read_only": True, "default": "balcão"}), COMPILER
    )
    assert validate_compiled(form, {}).as_dict() == {"origin": "balcão"}
    assert validate_compiled(form, {"origin": " balcão "}).as_dict() == {"origin": "balcão"}
    errors = _errors(form, {"origin": "internet"})
    assert [(e.path, e.code) for e in errors] == [("origin", "read_only")]


def test_read_only_field_keeps_the_previous_value_over_the_default() -> None:
    form = compile_form(
        form_of(
            {"id": "protocol", "type": "text", "read_only": True, "default": "?"},
            {"id": "cpf", "type": "cpf", "read_only": True},
        ),
        COMPILER,
    )
    previous = {"protocol": "DOE-2026-000123", "cpf": "52998224725"}
    same = {"protocol": "DOE-2026-000123", "cpf": VALID_CPF}
    assert validate_compiled(form, same, previous=previous).as_dict() == previous
    assert validate_compiled(form, {}, previous=previous).as_dict() == previous
    errors = _errors(form, {"protocol": "?", "cpf": "123"}, previous=previous)
    assert [(e.path, e.code) for e in errors] == [("protocol", "read_only"), ("cpf", "read_only")]


def test_a_required_read_only_field_without_a_value_is_an_error() -> None:
    form = compile_form(
        form_of({"id": "p", "type": "text", "read_only": True, "required": True}), COMPILER
    )
    assert [e.code for e in _errors(form, {})] == ["required"]


def test_a_previous_value_that_this_form_cannot_read_is_reported() -> None:
    form = compile_form(form_of({"id": "n", "type": "integer", "read_only": True}), COMPILER)
    errors = _errors(form, {}, previous={"n": "not a number"})
    assert [e.code for e in errors] == ["invalid_previous_value"]


def test_validate_compiled_compiles_nothing() -> None:
    compiler = CelFormCompiler()
    form = compile_form(parse_form(REVIEW, compiler=compiler), compiler)
    before = compiler.compiled
    for _ in range(3):
        validate_compiled(form, {"decision": "approve"})
    assert compiler.compiled == before


def test_clean_submission_cannot_be_changed() -> None:
    clean = validate_compiled(REVIEW_FORM, {"decision": "approve"})
    with pytest.raises(AttributeError):
        clean.answers = ()  # type: ignore[misc]
    copy = clean.as_dict()
    copy["decision"] = "reject"
    assert clean.as_dict()["decision"] == "approve"
    assert isinstance(clean, CleanSubmission)
