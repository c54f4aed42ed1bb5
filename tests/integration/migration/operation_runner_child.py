"""A separate process that runs one long operation (``python -m`` this module URL ID): the
crash test kills it with SIGKILL in the middle and starts another one to continue.

It boots the platform on the test database with the purchase test plugin, the real clock and
real ids, and runs the operation until it is over (``busy`` while the dead runner's lease lasts).
"""

from __future__ import annotations

import asyncio
import sys

from core.app import Platform
from core.plugins import PluginHost
from core.settings import Settings
from services.workflow.bootstrap import service_of
from tests.fakes.purchase import PurchasePlugin


async def main(database_url: str, operation_id: str) -> str:
    host = PluginHost()
    host.discover(groups=["tramita.services"])
    host.register(PurchasePlugin(), "purchase_test")
    platform = await Platform.boot(Settings(database_url=database_url), host=host, upgrade=False)
    try:
        operations = service_of(platform).operations
        assert operations is not None
        while True:
            outcome = await operations.run(operation_id)
            if outcome != "busy" or not (await operations.get(operation_id)).active:
                return outcome
            await asyncio.sleep(0.1)
    finally:
        await platform.close()


if __name__ == "__main__":
    print(asyncio.run(main(sys.argv[1], sys.argv[2])), flush=True)
