"""A long step records progress; a retried attempt resumes from the last checkpoint."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest

from contracts.errors import RetryableFailure
from contracts.hookspecs import hookimpl
from contracts.kernel import Actor
from contracts.workflow.handlers import StepControl
from contracts.workflow.types import StartRequest, StepInput, StepResult
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.runtime.ports import ClaimLost
from tests.fakes.boot import booted

BATCH = {
    "format": 1,
    "key": "batch.import",
    "name": "Batch import",
    "protocol_prefix": "BAT",
    "nodes": [
        {"id": "begin", "type": "start", "produces": ["size"], "next": "load"},
        {
            "id": "load",
            "type": "service_task",
            "handler": "batch.load",
            "consumes": ["size"],
            "produces": ["loaded"],
            "next": "end",
        },
        {"id": "end", "type": "end"},
    ],
}


class BatchLoader:
    """Processes items one by one, checkpointing each; crashes once in the middle."""

    def __init__(self, crash_after: int) -> None:
        self.crash_after = crash_after
        self.processed: list[int] = []
        self.started_from: list[int] = []

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        start = (step.checkpoint or {}).get("last", 0) + 1
        self.started_from.append(start)
        for item in range(start, int(step.data["size"]) + 1):
            self.processed.append(item)
            await control.checkpoint({"last": item})
            if item == self.crash_after and len(self.started_from) == 1:
                raise RetryableFailure("the source went away", status=503)
        return StepResult(output={"loaded": len(set(self.processed))})


class BatchPlugin:
    def __init__(self) -> None:
        self.loader = BatchLoader(crash_after=4)

    @hookimpl
    def tramita_register_queues(self, registry: Any) -> None:
        registry.add("batch.import.operators", "Batch operators")

    @hookimpl
    def tramita_register_handlers(self, registry: Any) -> None:
        registry.add("batch.load", self.loader)

    @hookimpl
    def tramita_register_workflows(self, registry: Any) -> None:
        registry.add(BATCH)


@pytest.fixture
def batch() -> BatchPlugin:
    return BatchPlugin()


@pytest.fixture
async def service(
    database_url: str, clock: FixedClock, batch: BatchPlugin
) -> AsyncIterator[WorkflowService]:
    async with booted(database_url, clock, batch_test=batch) as service:
        yield service


async def test_a_retried_attempt_resumes_from_the_last_checkpoint(
    service: WorkflowService, batch: BatchPlugin, clock: FixedClock
) -> None:
    view = await service.engine.start(
        StartRequest(definition_key="batch.import", context={"size": 10}, actor=Actor(id="u"))
    )
    await service.delivery.drain()
    clock.advance(timedelta(seconds=5))
    await service.delivery.drain()
    done = await service.engine.status(view.id)
    assert done.status == "completed" and done.context["loaded"] == 10
    assert batch.loader.started_from == [1, 5]
    assert batch.loader.processed == list(range(1, 11))
    async with service.engine._uow() as uow:
        runs = await uow.steps.of(view.id)
    assert [(r.attempt, r.status, r.checkpoint) for r in runs] == [
        (1, "failed", {"last": 4}),
        (2, "succeeded", {"last": 10}),
    ]


async def test_a_step_whose_worker_died_is_swept_and_finished_by_another(
    service: WorkflowService, batch: BatchPlugin, clock: FixedClock
) -> None:
    batch.loader.crash_after = 0
    view = await service.engine.start(
        StartRequest(definition_key="batch.import", context={"size": 3}, actor=Actor(id="u"))
    )
    async with service.engine._uow() as uow:
        (step,) = [r for r in await uow.steps.of(view.id) if r.node_id == "load"]
        taken = await uow.steps.claim(
            step.id,
            owner="killed-worker",
            now=clock.now(),
            lease_until=clock.now() + timedelta(seconds=60),
        )
        await uow.steps.update(step.id, checkpoint={"last": 2})
        await uow.commit()
    assert taken is not None
    await service.delivery.drain()  # the message arrives, but the step is leased: skipped
    assert (await service.engine.status(view.id)).status == "running"
    clock.advance(timedelta(seconds=61))
    assert await service.delivery.sweeper.sweep() == 1
    clock.advance(timedelta(seconds=2))  # the next attempt waits its backoff
    await service.delivery.drain()
    done = await service.engine.status(view.id)
    assert done.status == "completed"
    assert batch.loader.started_from == [3]  # resumed from the dead worker's checkpoint
    async with service.engine._uow() as uow:
        runs = await uow.steps.of(view.id)
    assert [(r.attempt, r.status, (r.error or {}).get("code")) for r in runs] == [
        (1, "failed", "lease_expired"),
        (2, "succeeded", None),
    ]
    assert len({r.idempotency_key for r in runs}) == 1


async def test_a_step_read_by_two_workers_is_taken_by_one(
    service: WorkflowService, batch: BatchPlugin, clock: FixedClock
) -> None:
    """Both read the step while it is scheduled (a duplicate delivery); the second claim finds
    it taken: none on SQLite, ``ClaimLost`` at the commit on PostgreSQL (the claim travels with
    it). The step keeps the first worker's lease and the handler never runs twice."""
    view = await service.engine.start(
        StartRequest(definition_key="batch.import", context={"size": 1}, actor=Actor(id="u"))
    )
    async with service.engine._uow() as uow:
        (step,) = [r for r in await uow.steps.of(view.id) if r.node_id == "load"]
    lease = clock.now() + timedelta(seconds=60)
    async with service.engine._uow() as uow:
        first = await uow.steps.take(step, owner="w1", now=clock.now(), lease_until=lease)
        await uow.commit()
    assert first is not None and first.lease_owner == "w1" and first.status == "running"
    lost = False
    async with service.engine._uow() as uow:
        second = await uow.steps.take(step, owner="w2", now=clock.now(), lease_until=lease)
        try:
            await uow.commit()
        except ClaimLost:
            lost = True
    assert lost or second is None
    assert lost == uow.is_postgres
    async with service.engine._uow() as uow:
        (stored,) = [r for r in await uow.steps.of(view.id) if r.node_id == "load"]
    assert (stored.status, stored.lease_owner) == ("running", "w1")
    assert stored.started_at == first.started_at and stored.lease_expires_at == lease
    # The delivery the second worker got is skipped: the handler does not run.
    assert await service.executor.run_step(step.id) == "skipped"
    assert batch.loader.started_from == []
