"""The production process model, started from the documented commands as real processes
(``tramita serve``, ``tramita relay`` and two ``tramita worker`` pools on PostgreSQL + Redis;
``tramita run`` alone on the embedded defaults), with a flow driven only through HTTP."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.fakes.partners import Erp, Gateway
from tests.integration.durable.harness import ROOT, TRAMITA, Fleet, PrivateRedis, free_port
from tests.integration.durable.test_flagship import APPROVER, boot

pytestmark = pytest.mark.slow
GRANTS = ["durable.approve", "workflow.start", "workflow.read", "workflow.tasks"]


async def _wait_http(client: httpx.AsyncClient, fleet: Fleet, limit_s: float = 60) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        try:
            if (await client.get("/health")).status_code == 200:
                return
        except httpx.TransportError:
            pass
        await asyncio.sleep(0.3)
    raise AssertionError("the API did not come up:\n" + fleet.logs())


async def _until(client: httpx.AsyncClient, path: str, status: str, limit_s: float = 60) -> dict:
    deadline = time.monotonic() + limit_s
    body: dict = {}
    while time.monotonic() < deadline:
        body = (await client.get(path)).json()
        if body.get("status") == status:
            return body
        await asyncio.sleep(0.2)
    raise AssertionError(f"{path} stayed {body.get('status')!r}, expected {status!r}")


async def test_a_flow_runs_through_the_deployed_processes(
    backend: str,
    database_url: str,
    tmp_path: Path,
    plugin_site: Path,
    partners: tuple[Erp, Gateway],
) -> None:
    erp, gateway = partners
    env = {
        **os.environ,
        "PYTHONPATH": f"{plugin_site}:{ROOT}",
        "TRAMITA_DATABASE_URL": database_url,
        "DURABLE_ERP_URL": erp.url,
        "DURABLE_GATEWAY_URL": gateway.url,
        "TRAMITA_LOG_JSON": "1",
    }
    redis = PrivateRedis(tmp_path) if backend == "postgresql" else None
    if redis is not None:
        redis.start()
        env["TRAMITA_REDIS_URL"] = redis.url
    upgrade = subprocess.run(
        [*TRAMITA, "db", "upgrade"], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert upgrade.returncode == 0, upgrade.stderr
    platform = await boot(database_url, redis.url if redis else None)  # creates the approver
    await platform.directory.ensure_profile("durable", "Durable approvers", GRANTS)
    await platform.close()
    token = subprocess.run(
        [*TRAMITA, "token", "issue", APPROVER.id],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    port = free_port()
    fleet = Fleet(env=env, logdir=tmp_path)
    try:
        if redis is not None:
            fleet.start("api", ["serve", "--port", str(port)])
            fleet.start("relay", ["relay"])
            fleet.start("w1", ["worker", "--queue", "validation", "--queue", "events"])
            fleet.start(
                "w2", ["worker", "--queue", "integration", "--queue", "notification", "--no-upkeep"]
            )
        else:
            fleet.start("run", ["run", "--port", str(port)])
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{port}", headers=headers, timeout=10
        ) as client:
            await _wait_http(client, fleet)
            health = (await client.get("/health")).json()
            expected = {"database": "ok", "broker": "ok"} if redis else {"database": "ok"}
            assert health["checks"] == expected
            created = await client.post(
                "/api/v1/instances",
                json={"definition_key": "durable.order", "context": {"amount": 5, "item": "pen"}},
                headers={"Idempotency-Key": "deploy-test-1"},
            )
            assert created.status_code == 201, created.text
            instance = created.json()
            path = f"/api/v1/instances/{instance['id']}"
            await _until(client, path, "waiting")
            (task,) = (await client.get(f"{path}/tasks")).json()
            claimed = await client.post(f"/api/v1/tasks/{task['id']}/claim")
            assert claimed.status_code in (200, 201), claimed.text
            done = await client.post(
                f"/api/v1/tasks/{task['id']}/complete", json={"outcome": "approve", "data": {}}
            )
            assert done.status_code in (200, 201), done.text
            final = await _until(client, path, "completed")
        assert erp.count(final["protocol"]) == 1
        assert gateway.count(final["protocol"]) == 1
        for name in fleet.procs:
            assert fleet.exited(name) is None, fleet.logs()
    finally:
        fleet.stop_all()
        if redis is not None:
            redis.kill()
