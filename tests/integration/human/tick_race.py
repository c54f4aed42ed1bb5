"""One contender in a tick race: boots its own platform at a fixed "later", says "ready",
waits for "go", runs ``tick`` and prints how many timers it fired."""

from __future__ import annotations

import asyncio
import sys
from datetime import datetime

from core.app import Platform
from core.clock import FixedClock
from core.ids import UUIDv7Gen
from core.plugins import PluginHost
from core.settings import Settings
from tests.fakes.purchase import PurchasePlugin
from tests.integration.human.casework import CaseworkPlugin


async def main(database_url: str, now: str) -> None:
    host = PluginHost()
    host.discover()
    host.register(PurchasePlugin(), "purchase_test")
    host.register(CaseworkPlugin(), "casework_test")
    platform = await Platform.boot(
        Settings(database_url=database_url),
        clock=FixedClock(datetime.fromisoformat(now)),
        ids=UUIDv7Gen(),
        host=host,
        upgrade=False,
    )
    try:
        from services.workflow.bootstrap import service_of

        engine = service_of(platform).engine
        print("ready", flush=True)
        sys.stdin.readline()
        print(await engine.tick(limit=20), flush=True)
    finally:
        await platform.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
