"""A migration of many instances as a background operation: counts, refusals, resume, cancel.

The operation is started like the pages start it, then run by the in-process delivery (the
dispatcher's ``workflow.operation`` topic) or by ``OperationService.run`` directly where a test
interrupts a runner between items and starts another."""

from __future__ import annotations

from datetime import timedelta

from core.audit import read_trail
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.runtime.kernel.migration_plan import MigrationRequest
from services.workflow.runtime.services.migration import Migrator
from services.workflow.runtime.services.operations import OperationService
from tests.integration.migration.helpers import (
    OPERATOR,
    publish,
    purchase_v1,
    waiting_purchases,
    with_node,
)

RENAMED = {"manager_approval": "manager_review"}


def params() -> dict[str, object]:
    return {
        "definition_key": "purchase.approval",
        "from_version": 1,
        "to_version": 2,
        "mapping": RENAMED,
    }


def ops(wf: WorkflowService) -> OperationService:
    assert wf.operations is not None
    return wf.operations


async def _setup(wf: WorkflowService, count: int) -> list[str]:
    ids = await waiting_purchases(wf, count)
    await publish(wf, with_node(purchase_v1(), "manager_approval", id="manager_review"))
    return ids


async def _versions(wf: WorkflowService, ids: list[str]) -> list[int]:
    return [(await wf.engine.status(i)).definition_version for i in ids]


async def _migrated_entries(wf: WorkflowService, instance_id: str) -> int:
    async with wf.engine._uow() as uow:
        trail = await read_trail(uow.conn, "workflow_instance", instance_id)
    return sum(1 for r in trail if r.entry.action == "workflow.instance.migrated")


async def test_a_migration_operation_finishes_and_refuses_one_instance_without_stopping(
    wf: WorkflowService, migrator: Migrator
) -> None:
    ids = await _setup(wf, 4)
    # One instance is moved beforehand: the operation finds it off the source version.
    request = MigrationRequest(
        definition_key="purchase.approval",
        from_version=1,
        to_version=2,
        mapping=RENAMED,
        instance_ids=(ids[1],),
    )
    await migrator.migrate(request, actor=OPERATOR, reason="first")
    started = await ops(wf).start(
        "migration", ids, actor=OPERATOR, reason="new approval step", params=params()
    )
    assert started.status == "queued" and started.total == 4
    await wf.delivery.drain()
    done = await ops(wf).get(started.id)
    assert (done.status, done.done, done.refused, done.total) == ("finished", 3, 1, 4)
    assert done.started_at is not None and done.finished_at is not None
    (refused,) = await ops(wf).items(started.id, refused_only=True)
    assert (refused.item_id, refused.code) == (ids[1], "not_on_source_version")
    assert await _versions(wf, ids) == [2, 2, 2, 2]
    assert [await _migrated_entries(wf, i) for i in ids] == [1, 1, 1, 1]


async def test_a_runner_interrupted_between_items_is_continued_without_repeating_any(
    wf: WorkflowService, clock: FixedClock
) -> None:
    ids = await _setup(wf, 5)
    service = ops(wf)
    started = await service.start("migration", ids, actor=OPERATOR, reason="r", params=params())
    # The first runner handles two instances and stops there, holding its lease like a
    # process that died between items.
    assert await service.run(started.id, limit=2) == "paused"
    halfway = await service.get(started.id)
    assert (halfway.status, halfway.done) == ("running", 2)
    assert await _versions(wf, ids) == [2, 2, 1, 1, 1]
    # While its lease lasts nobody else takes it; once it expires the sweep hands it on.
    assert await service.run(started.id) == "busy"
    assert await service.sweep() == 0
    clock.advance(service.lease + timedelta(seconds=1))
    assert await service.sweep() == 1
    await wf.delivery.drain()
    over = await service.get(started.id)
    assert (over.status, over.done, over.refused) == ("finished", 5, 0)
    assert await _versions(wf, ids) == [2, 2, 2, 2, 2]
    assert [await _migrated_entries(wf, i) for i in ids] == [1, 1, 1, 1, 1]
    assert [i.item_id for i in await service.items(started.id)] == ids


async def test_a_cancelled_operation_stops_before_its_next_item(wf: WorkflowService) -> None:
    ids = await _setup(wf, 3)
    service = ops(wf)
    started = await service.start("migration", ids, actor=OPERATOR, reason="r", params=params())
    assert await service.run(started.id, limit=1) == "paused"
    cancelled = await service.cancel(started.id, actor=OPERATOR, reason="wrong mapping")
    assert (cancelled.status, cancelled.cancelled_by, cancelled.cancel_reason) == (
        "cancelled",
        OPERATOR.id,
        "wrong mapping",
    )
    await wf.delivery.drain()
    assert await service.run(started.id) == "busy"
    after = await service.get(started.id)
    assert (after.status, after.done, after.refused) == ("cancelled", 1, 0)
    assert await _versions(wf, ids) == [2, 1, 1]
    async with wf.engine._uow() as uow:
        trail = await read_trail(uow.conn, "workflow_operation", started.id)
    assert [(r.entry.action, r.entry.reason) for r in trail] == [
        ("workflow.operation.started", "r"),
        ("workflow.operation.cancelled", "wrong mapping"),
    ]


async def test_a_small_chunk_hands_the_rest_on_through_the_outbox(wf: WorkflowService) -> None:
    ids = await _setup(wf, 3)
    service = ops(wf)
    service.chunk = 1
    started = await service.start("migration", ids, actor=OPERATOR, reason="r", params=params())
    await wf.delivery.drain()
    over = await service.get(started.id)
    assert (over.status, over.done) == ("finished", 3)


async def test_an_operation_whose_versions_do_not_exist_fails_without_touching_anything(
    wf: WorkflowService,
) -> None:
    ids = await waiting_purchases(wf, 1)
    service = ops(wf)
    bad = {**params(), "to_version": 9}
    started = await service.start("migration", ids, actor=OPERATOR, reason="r", params=bad)
    await wf.delivery.drain()
    over = await service.get(started.id)
    assert (over.status, over.error, over.done, over.refused) == ("failed", "not-found", 0, 0)
    broken = await service.start("migration", ids, actor=OPERATOR, reason="r", params={})
    await wf.delivery.drain()
    assert (await service.get(broken.id)).error == "invalid_parameters"
    assert await _versions(wf, ids) == [1]
