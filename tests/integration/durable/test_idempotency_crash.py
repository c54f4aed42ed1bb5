"""A ``tramita serve`` killed with SIGKILL in the middle of concurrent starts that carry
``Idempotency-Key``s leaves no key blocked: after a restart, a retry of every request either
replays the answer that committed with its effect or runs the request once."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from core.db import sync_url
from tests.fakes.partners import Erp, Gateway
from tests.integration.durable.harness import ROOT, TRAMITA, Fleet, free_port
from tests.integration.durable.test_deployment import GRANTS, _wait_http
from tests.integration.durable.test_flagship import APPROVER, boot

pytestmark = pytest.mark.slow
STARTS = 40
LEASE_S = 2


def _body(key: str) -> dict[str, object]:
    return {
        "definition_key": "durable.order",
        "context": {"amount": 5, "item": "pen"},
        "business_key": key,
    }


async def _start(client: httpx.AsyncClient, key: str) -> httpx.Response | None:
    try:
        return await client.post(
            "/api/v1/instances", json=_body(key), headers={"Idempotency-Key": key}
        )
    except httpx.TransportError:
        return None  # the process died with the request: its outcome is unknown


async def _retry(client: httpx.AsyncClient, key: str, limit_s: float = 90) -> httpx.Response:
    """Retry like a client would: a 409 (the dead attempt's lease not yet passed) means later."""
    deadline = time.monotonic() + limit_s
    while True:
        response = await _start(client, key)
        if response is not None and response.status_code != 409:
            return response
        assert time.monotonic() < deadline, f"key {key} stayed blocked"
        await asyncio.sleep(0.5)


def _rows(database_url: str) -> tuple[dict[str, int], dict[str, str]]:
    """Instances per business key, and each idempotency key's status."""
    engine = sa.create_engine(sync_url(database_url))
    try:
        with engine.connect() as conn:
            counts = dict(
                conn.execute(
                    sa.text(
                        "SELECT business_key, count(*) FROM workflow_instances"
                        " GROUP BY business_key"
                    )
                ).all()
            )
            statuses = dict(
                conn.execute(sa.text("SELECT key, status FROM core_idempotency_keys")).all()
            )
    finally:
        engine.dispose()
    return counts, statuses


async def test_a_killed_api_leaves_every_key_replayable_or_runnable_once(
    database_url: str, tmp_path: Path, plugin_site: Path, partners: tuple[Erp, Gateway]
) -> None:
    erp, gateway = partners
    env = {
        **os.environ,
        "PYTHONPATH": f"{plugin_site}:{ROOT}",
        "TRAMITA_DATABASE_URL": database_url,
        "DURABLE_ERP_URL": erp.url,
        "DURABLE_GATEWAY_URL": gateway.url,
        "TRAMITA_IDEMPOTENCY_LEASE_S": str(LEASE_S),
    }
    env.pop("TRAMITA_REDIS_URL", None)
    upgrade = subprocess.run(
        [*TRAMITA, "db", "upgrade"], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert upgrade.returncode == 0, upgrade.stderr
    platform = await boot(database_url, None)
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
    keys = [f"crash-{i:02d}" for i in range(STARTS)]
    try:
        fleet.start("api", ["serve", "--port", str(port)])
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{port}",
            headers={"Authorization": f"Bearer {token}"},
            timeout=30,
            limits=httpx.Limits(max_connections=STARTS),
        ) as client:
            await _wait_http(client, fleet)
            pending = {asyncio.create_task(_start(client, key)): key for key in keys}
            first: dict[str, httpx.Response] = {}
            while pending and not first:  # kill as soon as the first answer is out
                done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    response = task.result()
                    if response is not None:
                        first[pending[task]] = response
                    del pending[task]
            fleet.sigkill("api")
            for task, key in pending.items():
                response = await task
                if response is not None:
                    first[key] = response
            assert len(first) < STARTS, "every start finished before the kill: nothing tested"

            fleet.restart("api")
            await _wait_http(client, fleet)
            retried = await asyncio.gather(*(_retry(client, k) for k in keys))
            final = dict(zip(keys, retried, strict=True))
        counts, statuses = _rows(database_url)
        assert {k: r.status_code for k, r in final.items()} == dict.fromkeys(keys, 201)
        for key, response in first.items():  # whoever had an answer gets the same one again
            assert response.status_code == 201, response.text
            assert final[key].headers.get("idempotent-replayed") == "true"
            assert final[key].content == response.content
        assert counts == dict.fromkeys(keys, 1)  # each request's effect happened exactly once
        assert statuses == dict.fromkeys(keys, "done")
        assert fleet.exited("api") is None, fleet.logs()
    finally:
        fleet.stop_all()
