"""Crash-resume in the middle of a call activity and of a compensation (issue #24).

Twenty parents call a child whose step places an ERP order; twenty sagas place an ERP order,
then fail shipping terminally, so the order is compensated by a refund message at the gateway.
On PostgreSQL real processes run them (``tramita relay`` and two ``tramita worker`` over a
private Redis); both workers are SIGKILLed while a child's order and a refund hang at the
partners, other children and refunds are mid-request, and the children that already ended have
their ``workflow.call.ended`` messages in flight (no worker consumes ``events`` before the
kill). On SQLite the same runs on the embedded defaults, crashes injected in-process as in the
flagship, and every ``workflow.call.ended`` is delivered a second time.

Every parent completes exactly once with its child's ``order_id``, one child per parent, one
order per child; every saga is ``failed`` with exactly one refund; every history replays.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from services.workflow.bootstrap import WorkflowService, service_of
from services.workflow.persistence import tables as t
from services.workflow.runtime.ports import OutboxMessage
from tests.fakes.partners import Erp, Gateway
from tests.integration.durable.harness import Fleet, PrivateRedis
from tests.integration.durable.test_flagship import _simulate_crashes, boot

pytestmark = pytest.mark.slow
N = 20
DEADLINE_S = 60
INTEGRATION = ["worker", "--queue", "integration"]


async def start(service: WorkflowService, key: str) -> list[str]:
    ids = []
    for i in range(N):
        view = await service.engine.start(
            StartRequest(
                definition_key=key,
                context={"amount": 10 + i, "item": f"item-{i}"},
                actor=Actor(id="author"),
            )
        )
        ids.append(view.id)
    return ids


async def rows(service: WorkflowService, query: Any) -> list[Any]:
    async with service.engine._uow() as uow:
        return list((await uow.conn.execute(query)).all())


async def children(service: WorkflowService, parents: list[str]) -> dict[str, list[Any]]:
    """Each parent's children (id, protocol, status)."""
    found: dict[str, list[Any]] = {p: [] for p in parents}
    query = sa.select(
        t.instances.c.parent_instance_id,
        t.instances.c.id,
        t.instances.c.protocol,
        t.instances.c.status,
    ).where(t.instances.c.parent_instance_id.in_(parents))
    for row in await rows(service, query):
        found[row.parent_instance_id].append(row)
    return found


async def status_of(service: WorkflowService, ids: list[str]) -> dict[str, int]:
    query = (
        sa.select(t.instances.c.status, sa.func.count())
        .where(t.instances.c.id.in_(ids))
        .group_by(t.instances.c.status)
    )
    return {r[0]: r[1] for r in await rows(service, query)}


def plan(partner: Erp | Gateway, references: list[str]) -> None:
    """One hang (the kill waits for it), a few answers slower than the delivery loop."""
    partner.plan(references[0], "hang")
    for ref in references[1:4]:
        partner.plan(ref, "delay")


async def settle(service: WorkflowService, parents: list[str], sagas: list[str], step: Any) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        await step()
        done = await status_of(service, parents)
        failed = await status_of(service, sagas)
        if done.get("completed", 0) == N and failed.get("failed", 0) == N:
            return
        await asyncio.sleep(0.2)
    raise AssertionError(f"not settled: {await status_of(service, parents + sagas)}")


async def retried(service: WorkflowService, kind: str, ids: list[str]) -> int:
    query = (
        sa.select(sa.func.count())
        .select_from(t.step_runs)
        .where(t.step_runs.c.kind == kind, t.step_runs.c.attempt > 1)
        .where(t.step_runs.c.instance_id.in_(ids))
    )
    return int((await rows(service, query))[0][0])


async def check(
    service: WorkflowService, parents: list[str], sagas: list[str], erp: Erp, gw: Gateway
) -> None:
    family = await children(service, parents)
    child_ids = [c.id for kids in family.values() for c in kids]
    for parent_id, kids in family.items():
        assert len(kids) == 1, (parent_id, kids)  # no second child
        kid = kids[0]
        assert kid.status == "completed" and erp.count(kid.protocol) == 1, kid.protocol
        order = erp.find(kid.protocol)
        assert order is not None
        view = await service.engine.status(parent_id)
        assert view.status == "completed", view.protocol
        assert view.context["order_id"] == order["order_id"], view.protocol  # the `out` mapping
    resumed = await rows(
        service,
        sa.select(t.history.c.instance_id, sa.func.count())
        .where(t.history.c.event == "child_ended", t.history.c.instance_id.in_(parents))
        .group_by(t.history.c.instance_id),
    )
    assert sorted(r[0] for r in resumed) == sorted(parents), resumed
    assert {r[1] for r in resumed} == {1}, resumed  # each parent resumed exactly once
    refunds = await rows(
        service,
        sa.select(t.step_runs.c.instance_id, sa.func.count())
        .where(t.step_runs.c.kind == "compensation", t.step_runs.c.status == "succeeded")
        .where(t.step_runs.c.instance_id.in_(sagas))
        .group_by(t.step_runs.c.instance_id),
    )
    assert sorted(r[0] for r in refunds) == sorted(sagas) and {r[1] for r in refunds} == {1}
    for saga_id in sagas:
        view = await service.engine.status(saga_id)
        assert view.status == "failed", view.protocol
        assert erp.count(view.protocol) == 1, view.protocol
        assert gw.count(view.protocol) == 1, view.protocol  # the refund, exactly once
    for instance_id in [*parents, *child_ids, *sagas]:
        stored, rebuilt = await service.engine.replayed_state(instance_id)
        assert stored == rebuilt, instance_id


async def test_call_and_compensation_survive_killed_workers(
    backend: str,
    database_url: str,
    tmp_path: Path,
    partners: tuple[Erp, Gateway],
    plugin_site: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    erp, gateway = partners
    monkeypatch.setenv("DURABLE_ERP_URL", erp.url)
    monkeypatch.setenv("DURABLE_GATEWAY_URL", gateway.url)
    if backend == "postgresql":
        await _with_processes(database_url, tmp_path, erp, gateway, plugin_site)
    else:
        await _embedded(database_url, erp, gateway)


async def _with_processes(
    database_url: str, tmp_path: Path, erp: Erp, gateway: Gateway, site: Path
) -> None:
    redis = PrivateRedis(tmp_path)
    redis.start()
    env = {
        **os.environ,
        "PYTHONPATH": f"{site}:{Path(__file__).parents[3]}",
        "TRAMITA_DATABASE_URL": database_url,
        "TRAMITA_REDIS_URL": redis.url,
        "TRAMITA_WF_LEASE_MARGIN_S": "1",
        "TRAMITA_WF_STRANDED_AFTER_S": "3",
        "TRAMITA_WF_SWEEP_INTERVAL_S": "0.5",
        "TRAMITA_LOG_JSON": "1",
    }
    fleet = Fleet(env=env, logdir=tmp_path)
    platform = await boot(database_url, redis.url)
    service = service_of(platform)
    try:
        parents = await start(service, "durable.parent")
        sagas = await start(service, "durable.saga")
        family = await children(service, parents)
        plan(erp, [kids[0].protocol for kids in family.values()])
        plan(gateway, [(await service.engine.status(i)).protocol for i in sagas])
        fleet.start("relay", ["relay"])
        # Before the kill nobody consumes `events`: the ended children's messages wait there.
        fleet.start("w1", INTEGRATION)
        fleet.start("w2", [*INTEGRATION, "--no-upkeep"])
        seen: dict[str, int] = {}

        async def step() -> None:
            if not seen and erp.hanging.is_set() and gateway.hanging.is_set():
                sent = await rows(
                    service,
                    sa.select(sa.func.count())
                    .select_from(t.outbox)
                    .where(
                        t.outbox.c.topic == "workflow.call.ended", t.outbox.c.sent_at.is_not(None)
                    ),
                )
                if sent[0][0] < 3:  # wait for ended children whose message is in Redis
                    return
                seen["call_ended_in_flight"] = sent[0][0]
                done = (await status_of(service, parents)).get("completed", 0)
                seen["waiting_parents"] = N - done
                fleet.sigkill("w1")
                fleet.sigkill("w2")
                erp.release.set()
                gateway.release.set()
                fleet.start("w1", [*INTEGRATION, "--queue", "events"])
                fleet.start("w2", [*INTEGRATION, "--queue", "events", "--no-upkeep"])
            for name in ("relay", "w1", "w2"):
                assert fleet.exited(name) is None, fleet.logs()

        try:
            await settle(service, parents, sagas, step)
        except AssertionError:
            print(fleet.logs())
            raise
        assert fleet.kills == 2 and seen["waiting_parents"] == N, seen
        # The hung child's order and the hung refund were claimed by a killed worker: swept and
        # run again (reconciled at the gateway, deduplicated at the ERP).
        child_ids = [k.id for ks in (await children(service, parents)).values() for k in ks]
        assert await retried(service, "step", child_ids) >= 1
        assert await retried(service, "compensation", sagas) >= 1
        await check(service, parents, sagas, erp, gateway)
    finally:
        fleet.stop_all()
        redis.kill()
        await platform.close()


async def _embedded(database_url: str, erp: Erp, gateway: Gateway) -> None:
    platform = await boot(database_url, None)
    service = service_of(platform)
    try:
        parents = await start(service, "durable.parent")
        sagas = await start(service, "durable.saga")
        family = await children(service, parents)
        plan(erp, [kids[0].protocol for kids in family.values()])
        plan(gateway, [(await service.engine.status(i)).protocol for i in sagas])
        erp.release.set()  # no process to kill here: "hang" behaves like a slow answer
        gateway.release.set()
        await _simulate_crashes(service)
        service.delivery.start()

        async def step() -> None:
            service.delivery.wakeup()

        await settle(service, parents, sagas, step)
        async with service.engine._uow() as uow:  # every child's end delivered once more
            ended = await uow.conn.execute(
                sa.select(t.outbox).where(t.outbox.c.topic == "workflow.call.ended")
            )
            again = [{k: r._mapping[k] for k in OutboxMessage.__struct_fields__} for r in ended]
        assert len(again) == N
        await service.delivery.stop()
        for row in again:
            await service.delivery.broker.publish(OutboxMessage(**row))
        assert await service.delivery.drain() >= N
        kids = [k.id for ks in (await children(service, parents)).values() for k in ks]
        assert await retried(service, "step", [*kids, *sagas]) >= 1  # the dead worker's step
        await check(service, parents, sagas, erp, gateway)
    finally:
        await platform.close()
