"""Tenant worker pools (``TRAMITA_WF_TENANT_POOLS``): a step of a tenant with a pool of its own
goes to ``Q@tenant`` — the outbox topic the engine writes, the direct hand-off between steps
and the sweeper's re-send all follow ``naming.routed_queue``; every other tenant's stay on Q.
On the in-memory unit of work, no I/O."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from contracts.kernel import Actor
from contracts.workflow.handlers import StepControl
from contracts.workflow.types import StartRequest, StepInput, StepResult
from services.workflow.delivery.relay import Sweeper
from services.workflow.runtime.kernel.naming import pool_of, routed_queue
from services.workflow.runtime.services.executor import Executor
from services.workflow.settings import load_settings
from tests.fakes.memory_kit import MemoryKit
from tests.fakes.telemetry import NoTelemetry

POOLS = frozenset({"cidade-a", "cidade-b"})


@pytest.mark.parametrize(
    ("queue", "tenant", "routed"),
    [
        ("integration", "cidade-a", "integration@cidade-a"),
        ("alvara.tributos", "cidade-b", "alvara.tributos@cidade-b"),
        ("integration", "cidade-c", "integration"),
        ("integration", "default", "integration"),
        ("integration", "", "integration"),
    ],
)
def test_a_tenant_with_a_pool_gets_its_own_queue_and_others_keep_the_queue(
    queue: str, tenant: str, routed: str
) -> None:
    assert routed_queue(queue, tenant, POOLS) == routed


def test_without_pools_every_step_stays_on_its_queue() -> None:
    assert routed_queue("integration", "cidade-a", frozenset()) == "integration"


@pytest.mark.parametrize(
    ("name", "split"),
    [
        ("integration@cidade-a", ("integration", "cidade-a")),
        ("alvara.tributos@cidade-b", ("alvara.tributos", "cidade-b")),
        ("integration", ("integration", None)),
        ("integration@", ("integration", "")),
    ],
)
def test_a_worker_queue_name_splits_into_queue_and_tenant(
    name: str, split: tuple[str, str | None]
) -> None:
    assert pool_of(name) == split


def test_a_routed_name_splits_back_into_what_it_was_routed_from() -> None:
    assert pool_of(routed_queue("integration", "cidade-a", POOLS)) == ("integration", "cidade-a")


def test_the_setting_is_a_comma_separated_list_of_tenants() -> None:
    env = {"TRAMITA_WF_TENANT_POOLS": " cidade-a, cidade-b ,,"}
    assert load_settings({}, env).pools == POOLS
    assert load_settings({}, {}).pools == frozenset()


class Mark:
    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        return StepResult(output={step.node_id: True})


def _step(node_id: str, nxt: str) -> dict[str, Any]:
    return {
        "id": node_id,
        "type": "service_task",
        "handler": "pool.mark",
        "queue": "integration",
        "produces": [node_id],
        "failure": {"pending_queue": "pool.operators"},
        "next": nxt,
    }


TWO_STEPS = {
    "format": 1,
    "key": "pool.two",
    "name": "Two steps",
    "protocol_prefix": "TWO",
    "nodes": [
        {"id": "begin", "type": "start", "next": "one"},
        _step("one", "two"),
        _step("two", "end"),
        {"id": "end", "type": "end"},
    ],
}


async def _kit() -> MemoryKit:
    kit = MemoryKit(
        handlers={"pool.mark": Mark()},
        queues={"pool.operators": ("Operators", (), "")},
        pools=frozenset({"cidade-a"}),
    )
    await kit.boot(TWO_STEPS)
    return kit


async def _start(kit: MemoryKit, tenant: str) -> str:
    request = StartRequest(definition_key="pool.two", actor=Actor(id="author"), tenant=tenant)
    return (await kit.engine.start(request)).id


def _topics(kit: MemoryKit) -> dict[str, str]:
    """The step topic last written for each step run (by its outbox key)."""
    return {m.key: m.topic for m in kit.database.outbox if m.topic.startswith("step.")}


async def _steps(kit: MemoryKit, instance_id: str) -> dict[str, Any]:
    async with kit.uow() as uow:
        return {s.node_id: s for s in await uow.steps.of(instance_id)}


def _worker(kit: MemoryKit, *queues: str) -> Executor:
    return Executor(
        engine=kit.engine,
        uow_factory=kit.uow,
        clock=kit.clock,
        handlers={"pool.mark": Mark()},
        providers={},
        worker_id="pool-worker",
        telemetry=NoTelemetry(),
        eager_queues=frozenset(queues),
    )


async def test_the_engine_writes_a_pooled_tenants_step_to_its_own_queue() -> None:
    kit = await _kit()
    pooled, other = await _start(kit, "cidade-a"), await _start(kit, "cidade-b")
    topics = _topics(kit)
    assert topics[(await _steps(kit, pooled))["one"].id] == "step.integration@cidade-a"
    assert topics[(await _steps(kit, other))["one"].id] == "step.integration"
    # The step run keeps the definition's queue: the route is decided when it is sent.
    assert (await _steps(kit, pooled))["one"].queue == "integration"


async def test_a_plain_worker_does_not_take_a_pooled_tenants_next_step() -> None:
    kit = await _kit()
    pooled = await _start(kit, "cidade-a")
    await _worker(kit, "integration").run_step((await _steps(kit, pooled))["one"].id)
    two = (await _steps(kit, pooled))["two"]
    assert two.status == "scheduled"
    assert _topics(kit)[two.id] == "step.integration@cidade-a"


async def test_the_tenants_own_worker_takes_its_next_step_directly() -> None:
    kit = await _kit()
    pooled = await _start(kit, "cidade-a")
    await _worker(kit, "integration@cidade-a").run_step((await _steps(kit, pooled))["one"].id)
    two = (await _steps(kit, pooled))["two"]
    assert two.status == "succeeded"
    assert two.id not in _topics(kit)  # handed over in the transaction: no outbox row


async def test_the_sweeper_resends_a_stranded_step_to_the_routed_queue() -> None:
    kit = await _kit()
    pooled, other = await _start(kit, "cidade-a"), await _start(kit, "cidade-b")
    await kit.delivery.relay.pump()  # sent, then lost by the broker
    kit.clock.advance(timedelta(minutes=5))
    sweeper = Sweeper(
        kit.uow, kit.clock, recover=kit.executor.recover_expired, pools=frozenset({"cidade-a"})
    )
    assert await sweeper.sweep() == 2
    resent = {m.key: m.topic for m in kit.database.outbox[2:]}
    assert resent[(await _steps(kit, pooled))["one"].id] == "step.integration@cidade-a"
    assert resent[(await _steps(kit, other))["one"].id] == "step.integration"
