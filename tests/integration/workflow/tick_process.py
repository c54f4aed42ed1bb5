"""One tick process of a race: boots the platform (installed plugins only) at a fixed "later",
says "ready", waits for "go", runs ``tick`` in batches of ``limit`` and prints how many
timers it fired."""

from __future__ import annotations

import asyncio
import sys
from datetime import datetime

from core.app import Platform
from core.clock import FixedClock
from core.ids import UUIDv7Gen
from core.settings import Settings


async def main(database_url: str, now: str, limit: str) -> None:
    platform = await Platform.boot(
        Settings(database_url=database_url),
        clock=FixedClock(datetime.fromisoformat(now)),
        ids=UUIDv7Gen(),
        upgrade=False,
    )
    try:
        from services.workflow.bootstrap import service_of

        engine = service_of(platform).engine
        print("ready", flush=True)
        sys.stdin.readline()
        print(await engine.tick(limit=int(limit)), flush=True)
    finally:
        await platform.close()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
