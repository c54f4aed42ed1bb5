"""A worker that finishes a step takes the next one on its own queues in the same transaction
(no outbox row, no broker hop); a worker that dies holding such a step is recovered like any
other interrupted step."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from contracts.hookspecs import hookimpl
from contracts.kernel import Actor
from contracts.workflow.handlers import StepControl
from contracts.workflow.types import StartRequest, StepInput, StepResult
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.delivery.inprocess import InProcessDelivery
from services.workflow.persistence import tables as t
from services.workflow.runtime.services.executor import MAX_CHAIN
from tests.fakes.boot import booted

CHAIN = {
    "format": 1,
    "key": "eager.chain",
    "name": "Eager chain",
    "protocol_prefix": "EAG",
    "nodes": [
        {"id": "begin", "type": "start", "produces": ["n"], "next": "one"},
        {
            "id": "one",
            "type": "service_task",
            "handler": "eager.add",
            "queue": "integration",
            "consumes": ["n"],
            "produces": ["one"],
            "next": "two",
        },
        {
            "id": "two",
            "type": "service_task",
            "handler": "eager.add",
            "queue": "integration",
            "consumes": ["n"],
            "produces": ["two"],
            "next": "three",
        },
        {
            "id": "three",
            "type": "service_task",
            "handler": "eager.add",
            "queue": "approval",
            "consumes": ["n"],
            "produces": ["three"],
            "next": "end",
        },
        {"id": "end", "type": "end"},
    ],
}


class Adder:
    """Answers with its node's name; dies (the job is cancelled) once on ``die_on``."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []
        self.die_on: str | None = None

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        self.calls.append((step.node_id, step.attempt))
        if step.node_id == self.die_on:
            self.die_on = None
            raise asyncio.CancelledError  # what a killed job looks like from inside
        return StepResult(output={step.node_id: int(step.data["n"]) + 1})

    async def reconcile(self, step: StepInput) -> StepResult | None:
        return None


class ChainPlugin:
    def __init__(self) -> None:
        self.adder = Adder()

    @hookimpl
    def tramita_register_queues(self, registry: Any) -> None:
        registry.add("eager.chain.operators", "Eager operators")

    @hookimpl
    def tramita_register_handlers(self, registry: Any) -> None:
        registry.add("eager.add", self.adder)

    @hookimpl
    def tramita_register_workflows(self, registry: Any) -> None:
        registry.add(CHAIN)


@pytest.fixture
def chain() -> ChainPlugin:
    return ChainPlugin()


@pytest.fixture
async def service(
    database_url: str, clock: FixedClock, chain: ChainPlugin
) -> AsyncIterator[WorkflowService]:
    async with booted(database_url, clock, eager_test=chain) as service:
        yield service


def _handing_over(
    service: WorkflowService, queues: set[str], max_chain: int = MAX_CHAIN
) -> InProcessDelivery:
    """In-process delivery through the executor a worker consuming ``queues`` runs."""
    return InProcessDelivery(
        service.uow_factory,
        service.platform.clock,
        service.handing_over(frozenset(queues), max_chain),
        wake=asyncio.Event(),
        recover=service.executor.recover_expired,
        stranded_after=service.settings.stranded_after,
    )


async def _start(service: WorkflowService) -> str:
    view = await service.engine.start(
        StartRequest(definition_key="eager.chain", context={"n": 1}, actor=Actor(id="u"))
    )
    return view.id


async def _sent_steps(service: WorkflowService, instance_id: str) -> set[str]:
    """Nodes whose step run went through the outbox."""
    async with service.engine._uow() as uow:
        runs = {r.id: r.node_id for r in await uow.steps.of(instance_id)}
        keys = (await uow.conn.execute(sa.select(t.outbox.c.key))).scalars().all()
    return {runs[k] for k in keys if k in runs}


async def test_the_next_step_on_a_served_queue_runs_without_the_broker(
    service: WorkflowService, chain: ChainPlugin
) -> None:
    delivery = _handing_over(service, {"integration"})
    iid = await _start(service)
    await delivery.drain()
    done = await service.engine.status(iid)
    assert done.status == "completed"
    assert done.context == {"n": 1, "one": 2, "two": 2, "three": 2}
    # "two" was handed over by "one"'s worker; "three" is on a queue it does not consume.
    assert await _sent_steps(service, iid) == {"one", "three"}
    assert chain.adder.calls == [("one", 1), ("two", 1), ("three", 1)]
    async with service.engine._uow() as uow:
        runs = {r.node_id: r for r in await uow.steps.of(iid)}
    assert runs["two"].status == "succeeded" and runs["two"].input == {"n": 1}
    assert runs["two"].started_at is not None and runs["two"].started_at >= runs["two"].created_at
    stored, replayed = await service.engine.replayed_state(iid)
    assert stored == replayed


async def test_the_chain_is_bounded_and_off_by_default(
    service: WorkflowService, chain: ChainPlugin
) -> None:
    iid = await _start(service)  # embedded default: no eager queues
    await service.delivery.drain()
    assert await _sent_steps(service, iid) == {"one", "two", "three"}
    delivery = _handing_over(service, {"integration", "approval"}, max_chain=1)
    other = await _start(service)
    await delivery.drain()
    assert (await service.engine.status(other)).status == "completed"
    assert await _sent_steps(service, other) == {"one", "two", "three"}


async def test_a_dead_worker_holding_a_handed_over_step_is_recovered(
    service: WorkflowService, chain: ChainPlugin, clock: FixedClock
) -> None:
    delivery = _handing_over(service, {"integration"})
    chain.adder.die_on = "two"
    iid = await _start(service)
    with pytest.raises(asyncio.CancelledError):
        await delivery.drain()
    async with service.engine._uow() as uow:
        two = next(r for r in await uow.steps.of(iid) if r.node_id == "two")
    assert two.status == "running" and two.lease_owner == service.executor.worker_id
    await delivery.drain()  # nothing to deliver: the step is leased, not queued
    assert (await service.engine.status(iid)).status == "running"
    assert two.lease_expires_at is not None
    clock.advance(two.lease_expires_at - clock.now() + timedelta(seconds=1))
    assert await delivery.sweeper.sweep() == 1
    clock.advance(timedelta(seconds=5))  # the next attempt waits its backoff
    await delivery.drain()
    assert (await service.engine.status(iid)).status == "completed"
    async with service.engine._uow() as uow:
        runs = [r for r in await uow.steps.of(iid) if r.node_id == "two"]
    assert [(r.attempt, r.status, (r.error or {}).get("code")) for r in runs] == [
        (1, "failed", "lease_expired"),
        (2, "succeeded", None),
    ]
    assert len({r.idempotency_key for r in runs}) == 1
    assert ("two", 2) in chain.adder.calls
