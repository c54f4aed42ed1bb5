"""A rule that fails at run time records its own code, and people read why in plain words."""

from __future__ import annotations

from typing import Any

import pytest
from wfdrive import Driver
from wfkit import compile_doc

from services.workflow.definition import CompiledModel
from services.workflow.rules.errors import rule_timeout
from services.workflow.runtime.kernel.failures import explain, failure_view, rule_cause
from services.workflow.runtime.kernel.state import FailureInfo


def routed(condition: str) -> CompiledModel:
    return compile_doc(
        {
            "format": 1,
            "key": "test.flow",
            "name": "T",
            "protocol_prefix": "TST",
            "nodes": [
                {"id": "begin", "type": "start", "produces": ["x"], "next": "work"},
                {
                    "id": "work",
                    "type": "service_task",
                    "handler": "work.do",
                    "produces": ["y"],
                    "next": "route",
                },
                {
                    "id": "route",
                    "type": "exclusive",
                    "branches": [{"when": condition, "next": "finish"}],
                    "default": "finish",
                },
                {"id": "finish", "type": "end"},
            ],
        }
    )


@pytest.mark.parametrize(
    ("condition", "y", "cause"),
    [
        ("100 / y > 1", 0, "division_by_zero"),
        ("y.amount > 1", {"other": 1}, "no_such_key"),
        ("y > 1", "not a number", "type_mismatch"),
        ("size(y) > 1", "x" * 300_000, "activation_too_large"),
    ],
)
def test_a_failing_condition_records_the_rules_own_code(condition: str, y: Any, cause: str) -> None:
    d = Driver(routed(condition))
    d.start(x=1)
    d.succeed("work", y=y)
    assert d.state.status == "failed"
    assert d.state.failure == FailureInfo(
        reason_code="condition_error", node_id="route", cause=cause
    )


def test_a_condition_that_is_not_boolean_says_so() -> None:
    d = Driver(routed("y"))
    d.start(x=1)
    d.succeed("work", y=3)
    assert d.state.failure == FailureInfo(
        reason_code="condition_not_boolean", node_id="route", cause="not_boolean"
    )


@pytest.mark.parametrize(
    ("cause", "words"),
    [
        ("timeout", "tempo limite"),
        ("division_by_zero", "divisão por zero"),
        ("activation_too_large", "grandes demais"),
        ("missing_variable", "falta um campo"),
    ],
)
def test_the_reason_is_explained_in_portuguese(cause: str, words: str) -> None:
    message = explain("condition_error", "route", cause)
    assert message.startswith("A condição de um desvio falhou na etapa route: ")
    assert words in message


def test_an_unknown_code_is_named_not_hidden() -> None:
    assert "novo_codigo" in explain("novo_codigo", None, None)
    assert "erro x_y" in explain("condition_error", "route", "x_y")


def test_a_state_written_before_causes_were_kept_still_explains_its_failure() -> None:
    view = failure_view({"failure": {"reason_code": "condition_error", "node_id": "route"}})
    assert view is not None and view.cause is None
    assert view.message == "A condição de um desvio falhou na etapa route."
    assert failure_view({"status": "running"}) is None


def test_a_rule_stopped_at_its_time_limit_records_timeout() -> None:

    assert rule_cause(rule_timeout("nodes.route.branches[0].when", 50)) == "timeout"
