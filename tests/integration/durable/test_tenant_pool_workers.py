"""A tenant with a worker pool of its own (``TRAMITA_WF_TENANT_POOLS``): its steps of
``integration`` go to ``integration@t1`` and only ``tramita worker --queue integration@t1`` runs
them, while every other tenant's stay on ``integration`` — real processes on PostgreSQL and
Redis. The embedded delivery (``tramita run``) serves every queue, routed ones included."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from pathlib import Path

import pytest

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from services.workflow.bootstrap import WorkflowService, service_of
from services.workflow.persistence import tables as t
from tests.fakes.partners import Erp, Gateway
from tests.integration.durable.harness import ROOT, TRAMITA, Fleet, PrivateRedis
from tests.integration.durable.test_flagship import boot

pytestmark = pytest.mark.slow
CASES = 3
DEADLINE_S = 90.0
"""Generous: the workers boot (seconds on a loaded machine) before they run anything."""


async def _start(service: WorkflowService, tenant: str) -> list[str]:
    ids = []
    for i in range(CASES):
        request = StartRequest(
            definition_key="durable.slow",
            context={"amount": i + 1, "item": f"{tenant}-{i}"},
            actor=Actor(id="author"),
            tenant=tenant,
        )
        ids.append((await service.engine.start(request)).id)
    return ids


async def _until_completed(service: WorkflowService, ids: list[str], fleet: Fleet | None) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        views = [await service.engine.status(i) for i in ids]
        if all(v.status == "completed" for v in views):
            return
        await asyncio.sleep(0.2)
    raise AssertionError("cases did not complete\n" + (fleet.logs() if fleet else ""))


async def _step_runs(service: WorkflowService, instance_id: str) -> list[tuple[str, str | None]]:
    async with service.uow_factory() as uow:
        return [(s.status, s.lease_owner) for s in await uow.steps.of(instance_id)]


async def _topics(service: WorkflowService, instance_id: str) -> set[str]:
    async with service.uow_factory() as uow:
        steps = {s.id for s in await uow.steps.of(instance_id)}
    async with service.platform.database.connect() as conn:
        rows = await conn.execute(t.outbox.select().where(t.outbox.c.key.in_(steps)))
        return {str(r.topic) for r in rows}


@pytest.mark.postgresql_only
async def test_a_tenant_pool_runs_its_tenants_steps_and_nobody_elses(
    backend: str,
    database_url: str,
    tmp_path: Path,
    plugin_site: Path,
    partners: tuple[Erp, Gateway],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    erp, _ = partners
    monkeypatch.setenv("DURABLE_ERP_URL", erp.url)
    monkeypatch.setenv("TRAMITA_WF_TENANT_POOLS", "t1")  # this process starts the cases
    redis = PrivateRedis(tmp_path)
    redis.start()
    env = {
        **os.environ,
        "PYTHONPATH": f"{plugin_site}:{ROOT}",
        "TRAMITA_DATABASE_URL": database_url,
        "TRAMITA_REDIS_URL": redis.url,
    }
    fleet = Fleet(env=env, logdir=tmp_path)
    platform = await boot(database_url, redis.url)
    service = service_of(platform)
    try:
        fleet.start("relay", ["relay"])
        fleet.start("plain", ["worker", "--queue", "integration", "--queue", "events"])
        t1, t2 = await _start(service, "t1"), await _start(service, "t2")
        await _until_completed(service, t2, fleet)
        # Only the plain pool runs: t2's cases are done, t1's steps are still queued.
        for instance_id in t1:
            assert (await service.engine.status(instance_id)).status != "completed"
            assert [s for s, _ in await _step_runs(service, instance_id)] == ["scheduled"]
            assert await _topics(service, instance_id) == {"step.integration@t1"}
        fleet.start("t1", ["worker", "--queue", "integration@t1", "--no-upkeep"])
        await _until_completed(service, t1, fleet)
        plain, own = fleet.procs["plain"].pid, fleet.procs["t1"].pid
        for instance_id, pid in [*((i, own) for i in t1), *((i, plain) for i in t2)]:
            owners = {owner for _, owner in await _step_runs(service, instance_id)}
            assert owners and all(str(o).endswith(f":{pid}") for o in owners), owners
    finally:
        fleet.stop_all()
        redis.kill()
        await platform.close()


async def test_the_embedded_delivery_runs_a_routed_tenants_steps(
    backend: str,
    database_url: str,
    plugin_site: Path,
    partners: tuple[Erp, Gateway],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    erp, _ = partners
    monkeypatch.setenv("DURABLE_ERP_URL", erp.url)
    monkeypatch.setenv("TRAMITA_WF_TENANT_POOLS", "t1")
    platform = await boot(database_url, None)
    service = service_of(platform)
    try:
        service.start_embedded()  # what `tramita run` does: every queue, in this process
        t1, t2 = await _start(service, "t1"), await _start(service, "t2")
        await _until_completed(service, [*t1, *t2], None)
        assert await _topics(service, t1[0]) == {"step.integration@t1"}
        assert await _topics(service, t2[0]) == {"step.integration"}
    finally:
        await service.close()
        await platform.close()


def test_a_worker_refuses_a_tenant_queue_of_a_tenant_without_a_pool(
    backend: str, database_url: str, tmp_path: Path, plugin_site: Path
) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": f"{plugin_site}:{ROOT}",
        "TRAMITA_DATABASE_URL": database_url,
        "TRAMITA_REDIS_URL": "redis://127.0.0.1:1/0",
        "TRAMITA_WF_TENANT_POOLS": "t1",
    }
    result = subprocess.run(
        [*TRAMITA, "worker", "--queue", "integration@t9"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "erro: a fila de worker 'integration@t9' é do órgão 't9', que não tem pool próprio: "
        "inclua-o em TRAMITA_WF_TENANT_POOLS"
    )
