"""The RuleEngine facade: the shape the definition package's compiler ports expect."""

from __future__ import annotations

import pytest

from contracts.errors import RuleError
from services.workflow.rules import (
    RuleCache,
    RuleEngine,
    RuleLimits,
    RuleSandbox,
    ValidationRule,
)


def _engine(sandbox: RuleSandbox) -> RuleEngine:
    return RuleEngine(limits=RuleLimits(timeout_ms=100), sandbox=sandbox, cache=RuleCache())


def test_compile_returns_a_callable_condition(sandbox: RuleSandbox) -> None:
    condition = _engine(sandbox).compile("value > 10", variables={"value"}, where="n.when")
    assert condition({"value": 11}) is True
    assert condition.evaluate_bool({"value": 1}) is False


def test_compile_errors_are_rule_errors_with_a_readable_detail(sandbox: RuleSandbox) -> None:
    with pytest.raises(RuleError) as info:
        _engine(sandbox).compile("valeu > 10", variables={"value"}, where="n.when")
    assert info.value.detail.startswith("n.when: unknown variable 'valeu'")


def test_compile_condition_refuses_non_boolean_expressions(sandbox: RuleSandbox) -> None:
    with pytest.raises(RuleError):
        _engine(sandbox).compile_condition("'a' + 'b'", variables=set(), where="n.when")


def test_compile_table_returns_a_callable_table(sandbox: RuleSandbox) -> None:
    table = {
        "hit_policy": "first",
        "inputs": [{"id": "v", "expr": "value"}],
        "outputs": ["queue"],
        "rules": [
            {"when": ["> 10"], "then": {"queue": "big"}},
            {"when": ["*"], "then": {"queue": "small"}},
        ],
    }
    decide = _engine(sandbox).compile_table(table, variables={"value"}, where="n.table")
    assert decide({"value": 11}) == {"queue": "big"}
    assert decide.match_rows({"value": 1}) == (1,)


def test_validation_through_the_engine(sandbox: RuleSandbox) -> None:
    engine = _engine(sandbox)
    rules = engine.compile_validation(
        [ValidationRule(id="pos", expr="form.n > 0", message="positive")],
        variables={"form"},
        where="r",
    )
    assert engine.validate(rules, {"form": {"n": 0}}).ok is False


def test_the_engine_shares_its_cache_between_compilations(sandbox: RuleSandbox) -> None:
    engine = _engine(sandbox)
    first = engine.compile("value > 1", variables={"value"}, where="a")
    second = engine.compile("value > 1", variables={"value"}, where="b")
    assert first.rule.program is second.rule.program
    assert len(engine.cache) == 1
