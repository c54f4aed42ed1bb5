"""A slow ERP on the integration queue never holds approvals back: they have their own queue
and worker. Real processes on PostgreSQL and Redis (on SQLite: the embedded delivery's
per-queue concurrency gives the same isolation inside one process)."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from services.workflow.bootstrap import WorkflowService, service_of
from tests.fakes.partners import DELAY_S, Erp, Gateway
from tests.integration.durable.harness import Fleet, PrivateRedis
from tests.integration.durable.test_flagship import APPROVER, boot, open_work

pytestmark = pytest.mark.slow
SLOW, QUICK = 6, 8
SLOW_INPROCESS = 20
"""The embedded delivery runs 4 integration steps at once: 20 slow ones keep the ERP busy for
5 x DELAY_S, long enough on a slow, loaded machine for the quick lane to finish first."""


async def _start(service: WorkflowService, key: str, n: int, **context: object) -> list[str]:
    ids = []
    for i in range(n):
        view = await service.engine.start(
            StartRequest(
                definition_key=key,
                context={"amount": i + 1, **context},
                actor=Actor(id="author"),
            )
        )
        ids.append(view.id)
    return ids


async def _wait_status(
    service: WorkflowService, ids: list[str], status: str, limit_s: float
) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        views = [await service.engine.status(i) for i in ids]
        if all(v.status == status for v in views):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"not all {status} within {limit_s}s")


async def _quick_lane_while_erp_is_busy(
    service: WorkflowService, erp: Erp, slow_count: int = SLOW, deliver: Any = None
) -> tuple[float, list[str]]:
    slow = await _start(service, "durable.slow", slow_count, item="heavy")
    for instance_id in slow:
        erp.plan((await service.engine.status(instance_id)).protocol, "delay")
    if deliver is not None:
        deliver()  # only now: a step delivered before its plan would not be slow
    quick = await _start(service, "durable.quick", QUICK)
    await _wait_status(service, quick, "waiting", 30)  # includes the workers booting
    began = time.monotonic()
    approvals, _, _ = await open_work(service)
    for task_id in approvals:
        await service.engine.complete(task_id, actor=APPROVER, outcome="approve", data={})
    await _wait_status(service, quick, "completed", 10)
    return time.monotonic() - began, slow


async def test_slow_integration_does_not_hold_approvals(
    backend: str,
    database_url: str,
    tmp_path: Path,
    plugin_site: Path,
    partners: tuple[Erp, Gateway],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    erp, gateway = partners
    monkeypatch.setenv("DURABLE_ERP_URL", erp.url)
    monkeypatch.setenv("DURABLE_GATEWAY_URL", gateway.url)
    if backend == "sqlite":
        platform = await boot(database_url, None)
        service = service_of(platform)
        try:
            # The background loop (per-queue concurrency) starts once the slow calls are planned.
            quick_s, slow = await _quick_lane_while_erp_is_busy(
                service, erp, SLOW_INPROCESS, service.delivery.start
            )
            slow_views = [await service.engine.status(i) for i in slow]
            assert any(v.status != "completed" for v in slow_views)  # the ERP is still busy
        finally:
            await platform.close()
    else:
        redis = PrivateRedis(tmp_path)
        redis.start()
        env = {
            **os.environ,
            "PYTHONPATH": f"{plugin_site}:{Path(__file__).parents[3]}",
            "TRAMITA_DATABASE_URL": database_url,
            "TRAMITA_REDIS_URL": redis.url,
        }
        fleet = Fleet(env=env, logdir=tmp_path)
        platform = await boot(database_url, redis.url)
        service = service_of(platform)
        try:
            fleet.start("relay", ["relay"])
            fleet.start("erp", ["worker", "--queue", "integration", "--concurrency", "1"])
            fleet.start(
                "rest",
                [
                    "worker",
                    "--queue",
                    "validation",
                    "--queue",
                    "notification",
                    "--queue",
                    "events",
                    "--no-upkeep",
                ],
            )
            quick_s, slow = await _quick_lane_while_erp_is_busy(service, erp)
            slow_views = [await service.engine.status(i) for i in slow]
            assert sum(v.status == "completed" for v in slow_views) < SLOW
            await _wait_status(service, slow, "completed", SLOW * DELAY_S + 20)
        finally:
            fleet.stop_all()
            redis.kill()
            await platform.close()
    # Approvals finished while the ERP backlog (SLOW x DELAY_S seconds) was still draining.
    assert quick_s < SLOW * DELAY_S / 2, quick_s
