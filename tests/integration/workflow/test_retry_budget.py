"""An operator's retry (after a partner's 4xx) or reprocess (after a dead letter) starts a fresh
retry budget for the attempt group; attempt numbers go on and the idempotency key stays."""

from __future__ import annotations

from datetime import timedelta

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from tests.fakes.purchase import PurchasePlugin, order, rejected, retryable
from tests.integration.human.casework import enrol, uid

CEILING = 5  # reserve_stock's default max_attempts


async def _runs(wf: WorkflowService, instance_id: str) -> list[tuple[int, str, str]]:
    async with wf.engine._uow() as uow:
        runs = await uow.steps.of(instance_id)
    return [(r.attempt, r.status, r.idempotency_key) for r in runs if r.node_id == "reserve_stock"]


async def _retry_for(wf: WorkflowService, clock: FixedClock, times: int) -> None:
    for _ in range(times):
        clock.advance(timedelta(minutes=10))
        await wf.delivery.drain()


async def test_a_retry_after_a_rejection_gets_the_whole_budget(
    wf: WorkflowService, clock: FixedClock, purchase: PurchasePlugin
) -> None:
    await enrol(wf, "purchase.approval.operators", "operator-2")
    purchase.stock.fail_next.append(rejected())  # attempt 1: 4xx, a pending task opens
    view = await wf.engine.start(
        StartRequest(definition_key="purchase.approval", context=order(100))
    )
    await wf.delivery.drain()
    (pending,) = [t for t in await wf.engine.tasks(view.id) if t.status == "ready"]
    # the operator's retry: then CEILING - 1 temporary failures, and the last attempt succeeds
    purchase.stock.fail_next.extend([retryable() for _ in range(CEILING - 1)])
    await wf.engine.complete(pending.id, actor=Actor(id=uid("operator-2")), outcome="retry")
    await wf.delivery.drain()
    await _retry_for(wf, clock, CEILING)
    runs = await _runs(wf, view.id)
    assert [(a, s) for a, s, _ in runs] == [
        (1, "rejected"),
        *[(n, "failed") for n in range(2, CEILING + 1)],
        (CEILING + 1, "succeeded"),
    ]
    assert len({k for _, _, k in runs}) == 1
    async with wf.engine._uow() as uow:
        assert await uow.dead_letters.all() == []
    assert (await wf.engine.status(view.id)).status == "completed"


async def test_a_reprocessed_dead_letter_gets_the_whole_budget_again(
    wf: WorkflowService, clock: FixedClock, purchase: PurchasePlugin
) -> None:
    purchase.stock.fail_next.extend([retryable() for _ in range(2 * CEILING)])
    view = await wf.engine.start(
        StartRequest(definition_key="purchase.approval", context=order(100))
    )
    await wf.delivery.drain()
    await _retry_for(wf, clock, CEILING)
    async with wf.engine._uow() as uow:
        (first,) = await uow.dead_letters.all()
    await wf.engine.reprocess(first["id"], actor=Actor(id="operator-1"))
    await wf.delivery.drain()
    await _retry_for(wf, clock, CEILING)
    async with wf.engine._uow() as uow:
        (second,) = await uow.dead_letters.all()
    assert (first["attempts"], second["attempts"]) == (CEILING, CEILING)
    runs = await _runs(wf, view.id)
    assert [a for a, _, _ in runs] == list(range(1, 2 * CEILING + 1))
    assert all(s == "failed" for _, s, _ in runs)
    assert len({k for _, _, k in runs}) == 1
    assert purchase.stock.calls == 2 * CEILING
