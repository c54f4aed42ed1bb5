"""Contenders in a race: this process boots its own platform, says "ready", waits for "go" on
stdin, then runs one attempt per actor at once, each on its own database connection, and prints
one JSON line per attempt."""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import UTC, datetime

from contracts.errors import TramitaError
from contracts.kernel import Actor
from core.app import Platform
from core.clock import FixedClock
from core.ids import UUIDv7Gen
from core.plugins import PluginHost
from core.settings import Settings
from tests.fakes.purchase import PurchasePlugin


async def attempt(platform: Platform, action: str, task_id: str, actor: str) -> dict[str, object]:
    assert platform.workflow is not None
    try:
        if action == "complete":
            await platform.workflow.complete(
                task_id, actor=Actor(id=actor), outcome="approve", data={"approval_comment": "ok"}
            )
        else:
            await platform.workflow.claim(task_id, actor=Actor(id=actor))
        return {"actor": actor, "ok": True}
    except TramitaError as exc:
        return {"actor": actor, "ok": False, "problem": exc.problem_type, "status": exc.status}


async def main(database_url: str, action: str, task_id: str, actors: list[str]) -> None:
    host = PluginHost()
    host.discover()
    host.register(PurchasePlugin(), "purchase_test")
    clock = FixedClock(datetime(2026, 3, 2, 13, 0, tzinfo=UTC))
    platform = await Platform.boot(
        Settings(database_url=database_url),
        clock=clock,
        ids=UUIDv7Gen(),
        host=host,
        upgrade=False,
    )
    try:
        print("ready", flush=True)
        sys.stdin.readline()
        results = await asyncio.gather(*(attempt(platform, action, task_id, a) for a in actors))
        for result in results:
            print(json.dumps(result), flush=True)
    finally:
        await platform.close()


if __name__ == "__main__":
    url, action, task, *who = sys.argv[1:]
    asyncio.run(main(url, action, task, who))
