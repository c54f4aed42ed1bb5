"""A contender in an event-gateway race (issue #24 item 3): this process boots its own platform
on the given instant, says "ready", waits for "go" on stdin, then either fires every due timer
(``tick``) or delivers the applicant's message to each instance at once, each on its own
database connection, and prints one JSON line per attempt."""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import datetime

from contracts.errors import TramitaError
from contracts.kernel import Actor
from core.app import Platform
from core.clock import FixedClock
from core.ids import UUIDv7Gen
from core.plugins import PluginHost
from core.settings import Settings
from services.workflow.bootstrap import service_of
from services.workflow.runtime.services.engine import Engine
from tests.integration.workflow.test_event_gateway import RacePlugin


async def deliver(engine: Engine, instance_id: str) -> dict[str, object]:
    try:
        await engine.signal(instance_id, "reply", payload={"doc": "D-1"}, actor=Actor(id="officer"))
        return {"instance": instance_id, "ok": True}
    except TramitaError as exc:
        return {"instance": instance_id, "ok": False, "code": exc.fields.get("code")}


async def main(database_url: str, now: str, action: str, instances: list[str]) -> None:
    host = PluginHost()
    host.discover()
    host.register(RacePlugin(), "race_test")
    platform = await Platform.boot(
        Settings(database_url=database_url),
        clock=FixedClock(datetime.fromisoformat(now)),
        ids=UUIDv7Gen(),
        host=host,
        upgrade=False,
    )
    try:
        engine = service_of(platform).engine
        print("ready", flush=True)
        sys.stdin.readline()
        if action == "tick":
            print(json.dumps({"fired": await engine.tick()}), flush=True)
        else:
            for result in await asyncio.gather(*(deliver(engine, i) for i in instances)):
                print(json.dumps(result), flush=True)
    finally:
        await platform.close()


if __name__ == "__main__":
    url, instant, what, *ids = sys.argv[1:]
    asyncio.run(main(url, instant, what, ids))
