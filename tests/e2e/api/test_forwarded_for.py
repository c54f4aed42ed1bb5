"""``X-Forwarded-For`` counts only from a configured proxy: a real ``tramita serve`` process,
its ``/public`` rate limit (60 a minute per client) and clients that forge the header."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest

from tests.integration.durable.harness import Fleet, free_port

pytestmark = pytest.mark.slow
PATH = "/public/timeline/forged/json"  # 404 for a made-up link, but counted by the limiter


@asynccontextmanager
async def served(database_url: str, logdir: Path, **env: str) -> AsyncIterator[httpx.AsyncClient]:
    port = free_port()
    fleet = Fleet(env={**os.environ, "TRAMITA_DATABASE_URL": database_url, **env}, logdir=logdir)
    fleet.start("api", ["serve", "--port", str(port)])
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if (await client.get("/health")).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline or fleet.exited("api") is not None:
                    raise AssertionError("the API did not come up:\n" + fleet.logs())
                await asyncio.sleep(0.3)
            yield client
    finally:
        fleet.stop_all()


async def _statuses(client: httpx.AsyncClient, forwarded: list[str]) -> list[int]:
    return [
        (await client.get(PATH, headers={"X-Forwarded-For": value})).status_code
        for value in forwarded
    ]


async def test_a_client_cannot_reset_its_limit_by_changing_x_forwarded_for(
    database_url: str, tmp_path: Path
) -> None:
    async with served(database_url, tmp_path) as client:
        statuses = await _statuses(client, [f"203.0.113.{n}" for n in range(61)])
    assert statuses == [404] * 60 + [429]


async def test_a_configured_proxy_forwards_each_clients_own_limit(
    database_url: str, tmp_path: Path
) -> None:
    async with served(database_url, tmp_path, TRAMITA_TRUSTED_PROXIES="127.0.0.1") as client:
        distinct = await _statuses(client, [f"203.0.113.{n}" for n in range(61)])
        one_client = await _statuses(client, ["198.51.100.7"] * 61)
    assert distinct == [404] * 61
    assert one_client == [404] * 60 + [429]
