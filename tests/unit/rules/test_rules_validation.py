"""Validation rules: structured results, errors block, warnings do not, broken rules fail closed."""

from __future__ import annotations

import msgspec
import pytest

from contracts.errors import RuleError
from services.workflow.rules import (
    RuleLimits,
    RuleSandbox,
    ValidationFailure,
    ValidationResult,
    ValidationRule,
    compile_validation,
    run_validation,
)

VARIABLES = {"form", "now"}
RULES = [
    ValidationRule(id="amount_positive", expr="form.amount > 0", message="Amount must be positive"),
    ValidationRule(
        id="has_justification",
        expr="has(form.justification) && form.justification.size() >= 20",
        message="Explain the purchase in at least 20 characters",
        severity="warning",
    ),
    ValidationRule(
        id="cnpj_format", expr="form.cnpj.matches('^[0-9]{14}$')", message="CNPJ has 14 digits"
    ),
]


def _run(form: dict[str, object], sandbox: RuleSandbox) -> ValidationResult:
    compiled = compile_validation(RULES, variables=VARIABLES, where="nodes[1].rules")
    return run_validation(compiled, {"form": form}, sandbox=sandbox)


def test_valid_data_passes_with_no_failures(sandbox: RuleSandbox) -> None:
    form = {"amount": 10, "justification": "x" * 25, "cnpj": "12345678000195"}
    assert _run(form, sandbox) == ValidationResult(ok=True, failures=())


def test_an_error_severity_failure_blocks(sandbox: RuleSandbox) -> None:
    result = _run({"amount": 0, "justification": "x" * 25, "cnpj": "12345678000195"}, sandbox)
    assert result.ok is False
    assert result.failures == (
        ValidationFailure(
            id="amount_positive",
            message="Amount must be positive",
            severity="error",
            reason="failed",
        ),
    )


def test_a_warning_does_not_block(sandbox: RuleSandbox) -> None:
    result = _run({"amount": 5, "cnpj": "12345678000195"}, sandbox)
    assert result.ok is True
    assert [f.id for f in result.warnings] == ["has_justification"]
    assert result.errors == ()


def test_every_failure_is_reported_in_rule_order(sandbox: RuleSandbox) -> None:
    result = _run({"amount": -1, "cnpj": "123"}, sandbox)
    assert [(f.id, f.severity) for f in result.failures] == [
        ("amount_positive", "error"),
        ("has_justification", "warning"),
        ("cnpj_format", "error"),
    ]


def test_a_rule_that_cannot_be_evaluated_fails_closed(sandbox: RuleSandbox) -> None:
    result = _run({"amount": 5, "justification": "x" * 25}, sandbox)  # no cnpj at all
    assert result.ok is False
    assert result.failures[0].id == "cnpj_format"
    assert result.failures[0].reason == "error"


def test_a_rule_that_times_out_is_reported_as_timeout(sandbox: RuleSandbox) -> None:
    slow = "form.xs.all(a, form.xs.all(b, form.xs.all(c, a + b + c >= 0)))"
    rules = [ValidationRule(id="slow", expr=slow, message="m", severity="warning")]
    compiled = compile_validation(rules, variables=VARIABLES, where="r")
    result = run_validation(
        compiled,
        {"form": {"xs": list(range(400))}},
        limits=RuleLimits(timeout_ms=20),
        sandbox=sandbox,
    )
    assert result.ok is True  # a warning never blocks, even when it cannot run
    assert result.failures[0].reason == "timeout"


def test_failure_messages_are_the_authored_text_only(sandbox: RuleSandbox) -> None:
    result = _run({"amount": -987654, "cnpj": "secret-value"}, sandbox)
    encoded = msgspec.json.encode(result)
    assert b"987654" not in encoded
    assert b"secret-value" not in encoded


def test_compile_errors_name_each_rule_path() -> None:
    rules = [
        ValidationRule(id="a", expr="form.amount >", message="m"),
        ValidationRule(id="b", expr="form.amount + 1", message="m"),
        ValidationRule(id="a", expr="nope", message="m"),
    ]
    with pytest.raises(RuleError) as info:
        compile_validation(rules, variables=VARIABLES, where="nodes[1].rules")
    assert [(e.path, e.code) for e in info.value.errors] == [
        ("nodes[1].rules[0].expr", "syntax"),
        ("nodes[1].rules[2].id", "duplicate_id"),
        ("nodes[1].rules[2].expr", "unknown_variable"),
    ]


def test_a_statically_non_boolean_rule_is_refused() -> None:
    rules = [ValidationRule(id="a", expr="form.amount.size() + 1", message="m")]
    with pytest.raises(RuleError) as info:
        compile_validation(rules, variables=VARIABLES, where="r")
    assert info.value.errors[0].code == "not_boolean"


def test_results_are_frozen_structs_that_serialise() -> None:
    result = ValidationResult(
        ok=False, failures=(ValidationFailure(id="a", message="m", severity="error"),)
    )
    assert msgspec.json.decode(msgspec.json.encode(result), type=ValidationResult) == result
    with pytest.raises(AttributeError):
        result.ok = True  # type: ignore[misc]


def test_rules_shaped_like_the_definition_model_are_accepted(sandbox: RuleSandbox) -> None:
    class Spec(msgspec.Struct, frozen=True, kw_only=True):
        id: str
        expr: str
        message: str
        severity: str = "error"

    compiled = compile_validation(
        [Spec(id="x", expr="form.ok", message="m")],  # type: ignore[list-item]
        variables=VARIABLES,
        where="r",
    )
    assert run_validation(compiled, {"form": {"ok": False}}, sandbox=sandbox).ok is False
