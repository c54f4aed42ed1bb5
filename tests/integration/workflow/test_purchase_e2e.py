"""The seed's purchase approval, end to end through the engine, delivery and partners."""

from __future__ import annotations

from datetime import timedelta

import pytest

from contracts.errors import Forbidden
from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.audit import read_trail
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from tests.fakes.purchase import PurchasePlugin, order, rejected, retryable
from tests.integration.human.casework import uid

REQUESTER = Actor(id=uid("requester-1"))
MANAGER = Actor(id=uid("manager-1"))


async def start(wf: WorkflowService, value: float) -> str:
    view = await wf.engine.start(
        StartRequest(definition_key="purchase.approval", context=order(value), actor=REQUESTER)
    )
    await wf.delivery.drain()
    return view.id


async def assert_replays(wf: WorkflowService, instance_id: str) -> None:
    stored, rebuilt = await wf.engine.replayed_state(instance_id)
    assert rebuilt == stored


async def test_small_purchase_runs_straight_to_completion(
    wf: WorkflowService, purchase: PurchasePlugin
) -> None:
    instance_id = await start(wf, 500)
    view = await wf.engine.status(instance_id)
    assert view.status == "completed"
    assert view.protocol == "PUR-2026-000001"
    assert view.context["payment_id"] == "payment-1"
    assert len(purchase.stock.effects) == len(purchase.payment.effects) == 1
    assert purchase.notify.calls == 1
    await assert_replays(wf, instance_id)


async def test_large_purchase_waits_for_a_manager_who_approves(
    wf: WorkflowService, purchase: PurchasePlugin
) -> None:
    instance_id = await start(wf, 20_000)
    view = await wf.engine.status(instance_id)
    assert (view.status, view.current_nodes) == ("waiting", ("manager_approval",))
    assert purchase.stock.calls == 0
    (task,) = await wf.engine.tasks(instance_id)
    assert (task.queue, task.outcomes) == ("purchase.managers", ("approve", "reject"))
    await wf.engine.claim(task.id, actor=MANAGER)
    await wf.engine.complete(
        task.id, actor=MANAGER, outcome="approve", data={"approval_comment": "ok"}
    )
    await wf.delivery.drain()
    assert (await wf.engine.status(instance_id)).status == "completed"
    await assert_replays(wf, instance_id)


async def test_manager_rejection_ends_rejected_without_side_effects(
    wf: WorkflowService, purchase: PurchasePlugin
) -> None:
    instance_id = await start(wf, 20_000)
    (task,) = await wf.engine.tasks(instance_id)
    await wf.engine.complete(
        task.id, actor=MANAGER, outcome="reject", data={"approval_comment": "no"}
    )
    await wf.delivery.drain()
    assert (await wf.engine.status(instance_id)).status == "rejected"
    assert purchase.stock.calls == 0


async def test_the_author_cannot_approve_their_own_purchase(wf: WorkflowService) -> None:
    instance_id = await start(wf, 20_000)
    (task,) = await wf.engine.tasks(instance_id)
    with pytest.raises(Forbidden) as refused:
        await wf.engine.complete(
            task.id, actor=REQUESTER, outcome="approve", data={"approval_comment": "me"}
        )
    assert refused.value.fields["rule"] == "exclude_author"
    assert (await wf.engine.status(instance_id)).status == "waiting"
    (task,) = await wf.engine.tasks(instance_id)
    assert task.status == "ready"
    async with wf.engine._uow() as uow:
        trail = await read_trail(uow.conn, "workflow_task", task.id)
    assert [r.entry.action for r in trail] == ["workflow.task.opened", "workflow.task.refused"]
    assert trail[-1].entry.actor == REQUESTER


async def test_approval_expires_after_48_hours(
    wf: WorkflowService, clock: FixedClock, purchase: PurchasePlugin
) -> None:
    instance_id = await start(wf, 20_000)
    clock.advance(timedelta(hours=47, minutes=59))
    assert await wf.engine.tick() == 0
    clock.advance(timedelta(minutes=1))
    assert await wf.engine.tick() == 1
    await wf.delivery.drain()
    view = await wf.engine.status(instance_id)
    assert view.status == "expired"
    (task,) = await wf.engine.tasks(instance_id)
    assert task.status == "cancelled"
    assert purchase.stock.calls == 0
    await assert_replays(wf, instance_id)


async def test_payment_refusal_releases_the_reserved_stock(
    wf: WorkflowService, purchase: PurchasePlugin
) -> None:
    purchase.payment.fail_next.append(rejected())
    instance_id = await start(wf, 500)
    view = await wf.engine.status(instance_id)
    assert view.status == "failed"
    assert purchase.release.calls == 1
    assert purchase.stock.calls == 1 and not purchase.payment.effects
    await assert_replays(wf, instance_id)


async def test_temporary_payment_failures_retry_with_the_same_key(
    wf: WorkflowService, clock: FixedClock, purchase: PurchasePlugin
) -> None:
    purchase.payment.fail_next.extend([retryable(), retryable()])
    instance_id = await start(wf, 500)
    assert (await wf.engine.status(instance_id)).status == "running"
    for _ in range(2):
        clock.advance(timedelta(seconds=5))
        await wf.delivery.drain()
    view = await wf.engine.status(instance_id)
    assert view.status == "completed"
    assert purchase.payment.calls == 3 and len(purchase.payment.effects) == 1
    async with wf.engine._uow() as uow:
        runs = [r for r in await uow.steps.of(instance_id) if r.node_id == "charge_payment"]
    assert [r.attempt for r in runs] == [1, 2, 3]
    assert len({r.idempotency_key for r in runs}) == 1
    assert [r.status for r in runs] == ["failed", "failed", "succeeded"]
