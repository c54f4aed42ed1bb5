"""The seed's purchase approval, path by path, through the pure ``decide``."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from wfdrive import T0, Driver
from wfkit import compiled_example

from contracts.errors import Forbidden, InvalidTransition, ValidationFailed
from services.workflow.definition import CompiledModel
from services.workflow.runtime.kernel.effects import (
    CancelTimers,
    CloseTasks,
    Effect,
    InstanceFinished,
    OpenTask,
    RunCompensation,
    ScheduleStep,
    StartTimer,
    Transitioned,
)
from services.workflow.runtime.kernel.events import CompensationDone, TaskCompleted


@pytest.fixture(scope="module")
def model() -> CompiledModel:
    return compiled_example("purchase_approval")


def request(value: int) -> dict[str, Any]:
    return {
        "value": value,
        "item": "laptop",
        "quantity": 2,
        "requester": "ana",
        "requester_email": "ana@example.org",
    }


def kinds(effects: tuple[Effect, ...]) -> list[str]:
    return [type(e).__name__ for e in effects]


def path_of(driver: Driver) -> list[str | None]:
    return [e.to_node for e in driver.effects if isinstance(e, Transitioned)]


def to_payment(d: Driver) -> None:
    d.succeed("reserve_stock", reservation_id="R-1")


def test_small_purchase_goes_straight_to_stock_payment_and_notification(
    model: CompiledModel,
) -> None:
    d = Driver(model)
    first = d.start(**request(10000))
    assert first.effects[-1] == ScheduleStep(
        token_id="t",
        node_id="check",
        attempt_group=1,
        queue="validation",
        handler=None,
        fresh=True,  # entered anew: no earlier attempt to look up
    )
    assert d.state.status == "running"
    routed = d.succeed("check")
    assert kinds(routed.effects) == ["Transitioned", "Transitioned", "ScheduleStep"]
    assert d.token("reserve_stock").status == "active"
    d.succeed("reserve_stock", reservation_id="R-1")
    d.succeed("charge_payment", payment_id="P-1")
    done = d.succeed("notify")
    assert done.effects[-1] == InstanceFinished(status="completed", node_id="completed")
    assert d.state.status == "completed" and d.state.tokens == ()
    assert path_of(d) == [
        "request",
        "check",
        "route",
        "reserve_stock",
        "charge_payment",
        "notify",
        "completed",
    ]
    assert d.state.context["payment_id"] == "P-1"
    assert d.state.version == len(d.log) == 5
    assert d.replayed() == d.state


def test_large_purchase_waits_for_a_manager_with_a_48h_timer(model: CompiledModel) -> None:
    d = Driver(model)
    d.start(**request(10001))
    decision = d.succeed("check")
    task = next(e for e in decision.effects if isinstance(e, OpenTask))
    timer = next(e for e in decision.effects if isinstance(e, StartTimer))
    assert (task.queue, task.form, task.outcomes) == (
        "purchase.managers",
        "purchase.review",
        ("approve", "reject"),
    )
    assert timer.due_at == T0 + timedelta(hours=48) and timer.interrupting
    assert d.state.status == "waiting"


def test_approved_large_purchase_continues_and_cancels_the_timer(model: CompiledModel) -> None:
    d = Driver(model)
    d.start(**request(50000))
    d.succeed("check")
    d.later(hours=3)
    decision = d.complete("manager_approval", "approve", actor="boss", approval_comment="ok")
    assert kinds(decision.effects) == ["CloseTasks", "CancelTimers", "Transitioned", "ScheduleStep"]
    assert decision.effects[1] == CancelTimers(
        token_id="t", node_id="manager_approval", attempt_group=1, timer_ids=("expire",)
    )
    assert d.state.completed_nodes[-1].actor == "boss"
    assert d.state.context["approval_comment"] == "ok"
    to_payment(d)
    d.succeed("charge_payment", payment_id="P-9")
    d.succeed("notify")
    assert d.state.status == "completed"
    assert d.replayed() == d.state


def test_rejected_large_purchase_ends_rejected(model: CompiledModel) -> None:
    d = Driver(model)
    d.start(**request(50000))
    d.succeed("check")
    decision = d.complete("manager_approval", "reject", actor="boss")
    assert decision.effects[-1] == InstanceFinished(status="rejected", node_id="rejected")
    assert d.state.status == "rejected" and d.state.timers == ()


def test_unanswered_approval_expires_after_48h(model: CompiledModel) -> None:
    d = Driver(model)
    d.start(**request(50000))
    d.succeed("check")
    d.later(hours=48)
    decision = d.fire("manager_approval", "expire")
    assert decision.effects[0] == CloseTasks(
        token_id="t", node_id="manager_approval", attempt_group=1, reason="timer"
    )
    assert decision.effects[-1] == InstanceFinished(status="expired", node_id="expired")
    assert d.state.status == "expired"
    assert d.replayed() == d.state


def test_payment_failure_releases_the_reserved_stock_then_fails(model: CompiledModel) -> None:
    d = Driver(model)
    d.start(**request(500))
    d.succeed("check")
    to_payment(d)
    failed = d.fail("charge_payment")
    assert failed.effects[-1] == RunCompensation(
        node_id="reserve_stock", attempt_group=1, handler="stock.release", queue="integration"
    )
    assert d.state.status == "compensating"
    done = d.apply(CompensationDone(at=d.now, node_id="reserve_stock", attempt_group=1))
    assert done.effects == (
        InstanceFinished(
            status="failed", reason_code="retries_exhausted", node_id="charge_payment"
        ),
    )
    assert d.state.status == "failed"
    assert d.replayed() == d.state


def test_payment_rejected_by_the_partner_fails_because_its_policy_says_so(
    model: CompiledModel,
) -> None:
    d = Driver(model)
    d.start(**request(500))
    d.succeed("check")
    to_payment(d)
    d.fail("charge_payment", kind="rejected", reason="card_declined")
    assert d.state.status == "compensating"


def test_stock_rejection_opens_a_pending_task_for_operators(model: CompiledModel) -> None:
    d = Driver(model)
    d.start(**request(500))
    d.succeed("check")
    decision = d.fail("reserve_stock", kind="rejected", reason="unknown_item")
    task = decision.effects[-1]
    assert isinstance(task, OpenTask)
    assert (task.kind, task.queue, task.outcomes) == (
        "pending",
        "purchase.approval.operators",
        ("retry", "fail"),
    )
    assert d.state.status == "stalled"
    retried = d.complete("reserve_stock", "retry", actor="operator", item="laptop 14in")
    assert retried.effects[-1] == ScheduleStep(
        token_id="t",
        node_id="reserve_stock",
        attempt_group=1,
        queue="integration",
        handler="stock.reserve",
    )
    assert d.state.context["item"] == "laptop 14in"
    assert d.state.status == "running"


def test_the_author_cannot_approve_their_own_purchase(model: CompiledModel) -> None:
    d = Driver(model)
    d.start(actor="ana", **request(50000))
    d.succeed("check")
    with pytest.raises(Forbidden) as info:
        d.complete("manager_approval", "approve", actor="ana")
    assert info.value.fields["code"] == "separation_of_duties"


def test_completing_the_approval_twice_is_refused(model: CompiledModel) -> None:
    d = Driver(model)
    d.start(**request(50000))
    d.succeed("check")
    stale = d.token("manager_approval")
    d.complete("manager_approval", "approve", actor="boss")
    with pytest.raises(InvalidTransition) as info:
        d.apply(
            TaskCompleted(
                at=d.now,
                token_id=stale.id,
                node_id=stale.node_id,
                attempt_group=stale.attempt_group,
                outcome="approve",
                actor="boss",
            )
        )
    assert info.value.fields["code"] == "token_elsewhere"
    assert info.value.fields["current_node_id"] == "reserve_stock"
    assert "laptop" not in str(info.value.to_problem())


def test_undeclared_output_is_refused_and_names_the_key_only(model: CompiledModel) -> None:
    d = Driver(model)
    d.start(**request(500))
    d.succeed("check")
    with pytest.raises(ValidationFailed) as info:
        d.succeed("reserve_stock", reservation_id="R", secret="s3cr3t")
    assert [e.path for e in info.value.errors] == ["output.secret"]
    assert "s3cr3t" not in str(info.value.to_problem())
