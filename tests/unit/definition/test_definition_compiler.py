"""The compiled model: queues per node type, fork/join pairing, conditions, durations."""

from __future__ import annotations

from datetime import timedelta

import pytest
from wfkit import COMPILER, KNOWN, compiled_example, example_doc

from contracts.errors import DefinitionInvalid
from services.workflow.definition import compile_definition, parse_definition
from services.workflow.definition.durations import DurationError, parse_duration


def test_purchase_model_queues_and_tasks() -> None:
    model = compiled_example("purchase_approval")
    assert model.start == "request"
    assert dict(model.queues) == {
        "check": "validation",
        "manager_approval": "approval",
        "reserve_stock": "integration",
        "charge_payment": "integration",
        "notify": "notification",
    }
    assert model.task_queues["manager_approval"] == "purchase.managers"
    assert model.pending_queues["reserve_stock"] == "purchase.approval.operators"
    assert model.timer_durations[("manager_approval", "expire")] == timedelta(hours=48)
    assert model.personal == {"requester", "requester_email"}


def test_inline_nodes_have_no_queue() -> None:
    model = compiled_example("parallel_review")
    for inline in ("submit", "split", "merge", "budget_check", "done", "rejected"):
        assert inline not in model.queues


def test_fork_join_pairing_and_branch_count() -> None:
    model = compiled_example("parallel_review")
    assert dict(model.fork_join) == {"split": "merge"}
    assert dict(model.join_fork) == {"merge": "split"}
    assert model.join_incoming["merge"] == 2
    assert set(model.predecessors["merge"]) == {"legal_review", "budget_check", "board"}


def test_compiled_conditions_follow_the_branch_order() -> None:
    model = compiled_example("purchase_approval")
    ((condition, target),) = model.branches["route"]
    assert target == "manager_approval"
    assert condition({"value": 10001}) is True
    assert condition({"value": 10000}) is False


def test_available_keys_exclude_what_a_branch_may_skip() -> None:
    model = compiled_example("purchase_approval")
    assert "approval_comment" not in model.available["reserve_stock"]
    assert "reservation_id" in model.available["charge_payment"]


def test_compile_refuses_an_invalid_definition() -> None:
    doc = example_doc("six_node")
    doc["nodes"][3]["handler"] = "nope.publish"
    with pytest.raises(DefinitionInvalid) as info:
        compile_definition(parse_definition(doc), KNOWN, COMPILER)
    assert [e.code for e in info.value.errors] == ["unknown_handler"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("PT48H", timedelta(hours=48)),
        ("P2D", timedelta(days=2)),
        ("P1W", timedelta(weeks=1)),
        ("P1DT12H30M", timedelta(days=1, hours=12, minutes=30)),
        ("PT1.5S", timedelta(seconds=1.5)),
    ],
)
def test_exact_durations(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize("text", ["P1M", "P1Y", "PT", "P", "48h", "PT0S", "P1DT"])
def test_inexact_or_malformed_durations(text: str) -> None:
    with pytest.raises(DurationError):
        parse_duration(text)


def test_months_get_an_explanation() -> None:
    with pytest.raises(DurationError, match="no fixed length"):
        parse_duration("P1M")
