"""Past the retry ceiling a step waits in the dead letters; reprocessing resumes it in place."""

from __future__ import annotations

from datetime import timedelta

import pytest

from contracts.errors import InvalidTransition
from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.audit import read_trail
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from tests.fakes.purchase import PurchasePlugin, order, retryable

OPERATOR = Actor(id="operator-1")


async def _exhaust_stock(wf: WorkflowService, clock: FixedClock, purchase: PurchasePlugin) -> str:
    purchase.stock.fail_next.extend([retryable() for _ in range(5)])  # default ceiling: 5
    view = await wf.engine.start(
        StartRequest(definition_key="purchase.approval", context=order(100), actor=OPERATOR)
    )
    await wf.delivery.drain()
    for _ in range(4):
        clock.advance(timedelta(seconds=31))
        await wf.delivery.drain()
    return view.id


async def test_the_retry_ceiling_holds_the_instance_in_a_dead_letter(
    wf: WorkflowService, clock: FixedClock, purchase: PurchasePlugin
) -> None:
    instance_id = await _exhaust_stock(wf, clock, purchase)
    view = await wf.engine.status(instance_id)
    assert (view.status, view.current_nodes) == ("stalled", ("reserve_stock",))
    async with wf.engine._uow() as uow:
        (letter,) = await uow.dead_letters.all()
    assert letter["node_id"] == "reserve_stock" and letter["attempts"] == 5
    assert letter["reason"] == "retry_ceiling"
    assert letter["last_error"]["type"] == "RetryableFailure"
    assert letter["payload"] == {"item": "paper", "quantity": 10}
    assert purchase.stock.calls == 5 and not purchase.stock.effects


async def test_reprocessing_resumes_on_the_same_node_with_the_same_key(
    wf: WorkflowService, clock: FixedClock, purchase: PurchasePlugin
) -> None:
    instance_id = await _exhaust_stock(wf, clock, purchase)
    before = await wf.engine.status(instance_id)
    async with wf.engine._uow() as uow:
        (letter,) = await uow.dead_letters.all()
    await wf.engine.reprocess(letter["id"], actor=OPERATOR)
    await wf.delivery.drain()
    after = await wf.engine.status(instance_id)
    assert after.status == "completed"
    assert (after.id, after.protocol) == (before.id, before.protocol)
    async with wf.engine._uow() as uow:
        runs = [r for r in await uow.steps.of(instance_id) if r.node_id == "reserve_stock"]
        assert await uow.dead_letters.all() == []
    assert [r.attempt for r in runs] == [1, 2, 3, 4, 5, 6]
    assert len({r.idempotency_key for r in runs}) == 1
    assert len(purchase.stock.effects) == 1
    stored, rebuilt = await wf.engine.replayed_state(instance_id)
    assert stored == rebuilt


async def test_abandoning_a_dead_letter_fails_the_instance(
    wf: WorkflowService, clock: FixedClock, purchase: PurchasePlugin
) -> None:
    await _exhaust_stock(wf, clock, purchase)
    async with wf.engine._uow() as uow:
        (letter,) = await uow.dead_letters.all()
    view = await wf.engine.abandon(letter["id"], actor=OPERATOR, reason="supplier gone")
    assert view.status == "failed"
    assert purchase.release.calls == 0  # nothing had completed, nothing to compensate


async def test_cancelling_an_instance_closes_its_open_dead_letter(
    wf: WorkflowService, clock: FixedClock, purchase: PurchasePlugin
) -> None:
    instance_id = await _exhaust_stock(wf, clock, purchase)
    async with wf.engine._uow() as uow:
        (letter,) = await uow.dead_letters.all()
    view = await wf.engine.cancel(instance_id, reason="duplicate request", actor=OPERATOR)
    assert view.status == "cancelled"
    async with wf.engine._uow() as uow:
        assert await uow.dead_letters.all() == []
        closed = await uow.dead_letters.get(letter["id"])
        trail = await read_trail(uow.conn, "workflow_dead_letter", letter["id"])
    assert closed is not None
    assert (closed["status"], closed["resolved_at"]) == ("cancelled", clock.now())
    assert [(e.entry.action, e.entry.actor) for e in trail] == [
        ("workflow.dead_letter.cancelled", OPERATOR)
    ]
    with pytest.raises(InvalidTransition):
        await wf.engine.reprocess(letter["id"], actor=OPERATOR)
    assert purchase.stock.calls == 5  # nothing ran again
