"""Tenants on two databases (issue #25 item 6) with real processes on PostgreSQL and Redis:
``TRAMITA_TENANT_DATABASES`` puts ``t2``'s cases on a second database while ``t1`` stays on
``TRAMITA_DATABASE_URL``, and one ``tramita relay`` and one ``tramita worker`` serve both. Each
tenant's instances are stored on its own database only. With the second database stopped, the
same processes go on running ``t1``'s new cases; once it answers again they run ``t2``'s too.
(The API over the two databases: ``tests/e2e/api/test_tenant_databases_api.py``.)"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.app import Platform
from core.clock import SystemClock
from core.ids import UUIDv7Gen
from core.plugins import PluginHost
from core.settings import Settings
from services.workflow.bootstrap import WorkflowService, service_of
from services.workflow.handles import PLACEMENTS_KEY
from tests.fakes.partners import Erp, Gateway
from tests.integration.durable.harness import ROOT, Fleet, PrivateRedis
from tests.second_database import SecondDatabase as Second
from tests.second_database import second_database

pytestmark = [pytest.mark.slow, pytest.mark.postgresql_only]
CASES = 2
DEADLINE_S = 90.0
"""Generous: the processes boot (seconds on a loaded machine) before they run anything."""
NUMBERING = {
    "TRAMITA_WF_PROTOCOL_FORMAT": "nup",
    "TRAMITA_WF_PROTOCOL_UNIT": "00001",
    "TRAMITA_WF_TENANT_PROTOCOL_UNITS": "t2=67890",
}
"""A placed tenant numbers its cases in a series of its own (else the boot is refused)."""
UNAVAILABLE = "relay_database_unavailable"


@pytest.fixture
def second() -> Iterator[Second]:
    with second_database("tramita_t2") as found:
        yield found


async def _boot(home: str, second: Second, redis_url: str) -> Platform:
    host = PluginHost()
    host.discover()  # finds the test plugin through its entry point (its site is on sys.path)
    assert "durable_test" in host.names()
    return await Platform.boot(
        Settings(database_url=home, redis_url=redis_url, tenant_databases=(("t2", second.url),)),
        clock=SystemClock(),
        ids=UUIDv7Gen(),
        host=host,
        upgrade=False,
    )


async def _start(service: WorkflowService, tenant: str, n: int = CASES) -> list[str]:
    ids = []
    for i in range(n):
        request = StartRequest(
            definition_key="durable.slow",
            context={"amount": i + 1, "item": f"{tenant}-{uuid.uuid4().hex[:6]}"},
            actor=Actor(id="author"),
            tenant=tenant,
        )
        ids.append((await service.engine.start(request)).id)
    return ids


async def _until_completed(service: WorkflowService, ids: list[str], fleet: Fleet) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        views = [await service.engine.status(i) for i in ids]
        if all(v.status == "completed" for v in views):
            return
        await asyncio.sleep(0.2)
    raise AssertionError("cases did not complete\n" + fleet.logs())


def _stored(url: str, ids: list[str]) -> set[str]:
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://", 1)) as conn:
        rows = conn.execute(
            "SELECT id::text FROM workflow_instances WHERE id::text = ANY(%s)", (ids,)
        )
        return {str(row[0]) for row in rows}


async def _until_logged(fleet: Fleet, name: str, event: str, times: int) -> None:
    """Until process ``name`` has logged ``event`` at least ``times`` times."""
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        if (fleet.logdir / f"{name}.log").read_text(errors="replace").count(event) >= times:
            return
        await asyncio.sleep(0.2)
    raise AssertionError(f"{name} did not log {event} {times} times\n" + fleet.logs())


async def test_one_relay_and_one_worker_serve_two_databases_and_outlive_one_stopping(
    backend: str,
    database_url: str,
    second: Second,
    tmp_path: Path,
    plugin_site: Path,
    partners: tuple[Erp, Gateway],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    erp, _ = partners
    monkeypatch.setenv("DURABLE_ERP_URL", erp.url)
    for key, value in NUMBERING.items():
        monkeypatch.setenv(key, value)  # this process starts the cases
    redis = PrivateRedis(tmp_path)
    redis.start()
    env = {
        **os.environ,
        "PYTHONPATH": f"{plugin_site}:{ROOT}",
        "TRAMITA_DATABASE_URL": database_url,
        "TRAMITA_REDIS_URL": redis.url,
        "TRAMITA_TENANT_DATABASES": f"t2={second.url}",
    }
    fleet = Fleet(env=env, logdir=tmp_path)
    platform = await _boot(database_url, second, redis.url)
    home, placed = service_of(platform), platform.extras[PLACEMENTS_KEY]["t2"]
    assert placed is not home and placed.database is not platform.database
    try:
        fleet.start("relay", ["relay"])
        fleet.start("worker", ["worker", "--queue", "integration", "--queue", "events"])
        t1, t2 = await _start(home, "t1"), await _start(placed, "t2")
        await _until_completed(home, t1, fleet)
        await _until_completed(placed, t2, fleet)
        # Each tenant's instances on its own database only.
        assert _stored(database_url, t1) == set(t1) and _stored(database_url, t2) == set()
        assert _stored(second.url, t2) == set(t2) and _stored(second.url, t1) == set()

        # The second database stops: t1's new cases still run through the same processes.
        second.stop()
        await platform.placements["t2"].dispose()
        await _until_logged(fleet, "relay", UNAVAILABLE, 1)  # its LISTEN connection is gone
        again = await _start(home, "t1")
        await _until_completed(home, again, fleet)
        assert _stored(database_url, again) == set(again)
        # Its relay loop was started again after the pause and refused again, while t1's ran.
        await _until_logged(fleet, "relay", UNAVAILABLE, 2)
        assert fleet.exited("relay") is None and fleet.exited("worker") is None

        # It answers again: the processes resume its work.
        second.resume()
        await platform.placements["t2"].dispose()
        later = await _start(placed, "t2", 1)
        await _until_completed(placed, later, fleet)
        assert _stored(second.url, later) == set(later) and _stored(database_url, later) == set()
        assert fleet.exited("relay") is None and fleet.exited("worker") is None
    finally:
        fleet.stop_all()
        redis.kill()
        await platform.close()
