"""Contenders in a numbering race: this process boots its own platform (the numbering comes from
its environment), says "ready", waits for "go" on stdin, then starts one instance of the
definition per count at once, each on its own database connection, and prints one JSON line
per start: the protocol number it got, or the problem that refused it. An optional fourth
argument names the tenant the cases are started for (default: the deployment's own)."""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import UTC, datetime

from contracts.errors import TramitaError
from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.app import Platform
from core.clock import FixedClock
from core.ids import UUIDv7Gen
from core.settings import Settings


async def attempt(
    platform: Platform, definition_key: str, tenant: str | None = None
) -> dict[str, object]:
    assert platform.workflow is not None
    try:
        view = await platform.workflow.start(
            StartRequest(definition_key=definition_key, actor=Actor(id="clerk"), tenant=tenant)
        )
        return {"ok": True, "protocol": view.protocol}
    except TramitaError as exc:
        return {"ok": False, "problem": exc.problem_type}


async def main(
    database_url: str, definition_key: str, count: int, tenant: str | None = None
) -> None:
    clock = FixedClock(datetime(2026, 3, 2, 13, 0, tzinfo=UTC))
    platform = await Platform.boot(
        Settings(database_url=database_url), clock=clock, ids=UUIDv7Gen(), upgrade=False
    )
    try:
        print("ready", flush=True)
        sys.stdin.readline()
        results = await asyncio.gather(
            *(attempt(platform, definition_key, tenant) for _ in range(count))
        )
        for result in results:
            print(json.dumps(result), flush=True)
    finally:
        await platform.close()


if __name__ == "__main__":
    url, key, count, *tenant = sys.argv[1:]
    asyncio.run(main(url, key, int(count), *tenant))
