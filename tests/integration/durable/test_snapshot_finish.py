"""A worker applies its step's result to the instance as it last read it, without locking the
row first; when the instance changed meanwhile, the finish is redone on the locked row and no
result is lost or applied twice."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import sqlalchemy as sa

from contracts.hookspecs import hookimpl
from contracts.kernel import Actor
from contracts.workflow.handlers import StepControl
from contracts.workflow.types import InstanceView, StartRequest, StepInput, StepResult
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.runtime.ports import LeaseLost, StepRunRecord
from tests.fakes.boot import booted

SPLIT = {
    "format": 1,
    "key": "snapshot.split",
    "name": "Two branches",
    "protocol_prefix": "SNP",
    "nodes": [
        {"id": "begin", "type": "start", "produces": ["n"], "next": "fork"},
        {"id": "fork", "type": "parallel", "next": ["left", "right"]},
        {
            "id": "left",
            "type": "service_task",
            "handler": "snapshot.echo",
            "consumes": ["n"],
            "produces": ["left"],
            "next": "join",
        },
        {
            "id": "right",
            "type": "service_task",
            "handler": "snapshot.echo",
            "consumes": ["n"],
            "produces": ["right"],
            "next": "join",
        },
        {"id": "join", "type": "parallel", "next": "end"},
        {"id": "end", "type": "end"},
    ],
}


class Echo:
    def __init__(self) -> None:
        self.calls: list[str] = []

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        self.calls.append(step.node_id)
        return StepResult(output={step.node_id: int(step.data["n"]) * 10})


class SplitPlugin:
    def __init__(self) -> None:
        self.echo = Echo()

    @hookimpl
    def tramita_register_queues(self, registry: Any) -> None:
        registry.add("snapshot.split.operators", "Snapshot operators")

    @hookimpl
    def tramita_register_handlers(self, registry: Any) -> None:
        registry.add("snapshot.echo", self.echo)

    @hookimpl
    def tramita_register_workflows(self, registry: Any) -> None:
        registry.add(SPLIT)


@pytest.fixture
def split() -> SplitPlugin:
    return SplitPlugin()


@pytest.fixture
async def service(
    database_url: str, clock: FixedClock, split: SplitPlugin
) -> AsyncIterator[WorkflowService]:
    async with booted(database_url, clock, snapshot_test=split) as service:
        yield service


async def _start(service: WorkflowService, n: int) -> tuple[InstanceView, dict[str, StepRunRecord]]:
    """Start an instance; its step runs by node (both branches are scheduled at once)."""
    view = await service.engine.start(
        StartRequest(definition_key="snapshot.split", context={"n": n}, actor=Actor(id="u"))
    )
    async with service.engine._uow() as uow:
        return view, {r.node_id: r for r in await uow.steps.of(view.id)}


async def test_a_step_finished_on_a_stale_snapshot_is_redone_on_the_locked_row(
    service: WorkflowService, split: SplitPlugin
) -> None:
    view, runs = await _start(service, 4)
    executor = service.executor
    # Both workers claim (and so read the instance) before either finishes.
    left = await executor._claim(runs["left"].id)
    right = await executor._claim(runs["right"].id)
    assert not isinstance(left, str) and not isinstance(right, str)
    assert left[2].row_version == right[2].row_version
    assert (await executor._run(*left, chain=False))[0] == "succeeded"
    # "right" still holds the version before "left" finished: its update cannot win, so the
    # finish is redone with the row locked and both results end up on the instance.
    assert (await executor._run(*right, chain=False))[0] == "succeeded"
    done = await service.engine.status(view.id)
    assert done.status == "completed"
    assert done.context == {"n": 4, "left": 40, "right": 40}
    assert sorted(split.echo.calls) == ["left", "right"]
    async with service.engine._uow() as uow:
        after = {r.node_id: r for r in await uow.steps.of(view.id)}
    assert {n: (r.attempt, r.status) for n, r in after.items()} == {
        "left": (1, "succeeded"),
        "right": (1, "succeeded"),
    }
    stored, replayed = await service.engine.replayed_state(view.id)
    assert stored == replayed


async def test_a_step_whose_instance_was_cancelled_meanwhile_leaves_it_cancelled(
    service: WorkflowService, split: SplitPlugin
) -> None:
    view, runs = await _start(service, 1)
    left = await service.executor._claim(runs["left"].id)
    assert not isinstance(left, str)
    await service.engine.cancel(view.id, actor=Actor(id="admin"), reason="withdrawn")
    await service.executor._run(*left, chain=False)
    after = await service.engine.status(view.id)
    assert after.status == "cancelled"
    assert "left" not in after.context
    stored, replayed = await service.engine.replayed_state(view.id)
    assert stored == replayed


async def test_a_step_whose_lease_was_taken_away_changes_nothing(
    service: WorkflowService, split: SplitPlugin
) -> None:
    """The sweeper closed the attempt while the handler ran (its lease expired): the late
    result is discarded — on PostgreSQL the check travels with the commit and aborts it."""
    view, runs = await _start(service, 3)
    left = await service.executor._claim(runs["left"].id)
    assert not isinstance(left, str)
    async with service.engine._uow() as uow:
        await uow.steps.update(runs["left"].id, status="failed", lease_owner="sweeper")
        await uow.commit()
    before = await service.engine.status(view.id)
    history = len(await service.engine.history(view.id))
    assert await service.executor._run(*left, chain=True) == ("lease_lost", None)
    after = await service.engine.status(view.id)
    assert (after.row_version, after.context) == (before.row_version, before.context)
    assert len(await service.engine.history(view.id)) == history
    async with service.engine._uow() as uow:
        step = await uow.steps.get(runs["left"].id)
    assert step is not None and (step.status, step.lease_owner) == ("failed", "sweeper")


async def test_finishing_without_the_lease_raises_lease_lost_on_both_databases(
    service: WorkflowService, split: SplitPlugin
) -> None:
    """One contract for ``steps.finish`` by a worker that no longer holds the lease: it raises
    ``LeaseLost`` (SQLite at once, PostgreSQL when the held update is sent with the commit),
    and nothing of the unit of work is written."""
    _view, runs = await _start(service, 4)
    left = await service.executor._claim(runs["left"].id)
    assert not isinstance(left, str)
    with pytest.raises(LeaseLost):
        async with service.engine._uow() as uow:
            await uow.steps.finish(runs["left"].id, owner="not-the-holder", status="succeeded")
            await uow.steps.update(runs["right"].id, status="failed")
            await uow.commit()
    async with service.engine._uow() as uow:
        steps = {r.node_id: r.status for r in await uow.steps.of(runs["left"].instance_id)}
    assert steps == {"left": "running", "right": "scheduled"}


@pytest.mark.postgresql_only
async def test_a_finishing_step_locks_the_instance_before_its_step_run(
    service: WorkflowService, split: SplitPlugin
) -> None:
    """A timer firing holds the instance row and then changes the instance's step runs; a
    worker finishing a step must take the rows in the same order, or the two deadlock (and
    PostgreSQL aborts one after a second). Here the "timer" holds the instance while the worker
    finishes, then touches the step run: it must not have to wait for the worker."""
    view, runs = await _start(service, 5)
    left = await service.executor._claim(runs["left"].id)
    assert not isinstance(left, str)
    database = service.platform.database
    async with database.connect() as timer:
        await timer.begin()
        await timer.execute(sa.text("SET LOCAL lock_timeout = '2s'"))
        await timer.execute(
            sa.text("SELECT id FROM workflow_instances WHERE id = :id FOR UPDATE"), {"id": view.id}
        )
        worker = asyncio.create_task(service.executor._run(*left, chain=False))
        await asyncio.sleep(0.3)  # the worker's finish is now waiting for the instance row
        assert not worker.done()
        # Were the worker holding the step run already, this would wait for it (deadlock).
        await timer.execute(
            sa.text(
                "UPDATE workflow_step_runs SET lease_expires_at = lease_expires_at WHERE id = :id"
            ),
            {"id": runs["left"].id},
        )
        await timer.commit()
    assert (await asyncio.wait_for(worker, timeout=10))[0] == "succeeded"
    after = await service.engine.status(view.id)
    assert after.context["left"] == 50
