"""Boot the platform on a test database with extra test plugins registered."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.plugins import PluginHost
from core.settings import Settings
from services.workflow.bootstrap import WorkflowService, service_of


@asynccontextmanager
async def booted(
    database_url: str, clock: FixedClock, **plugins: object
) -> AsyncIterator[WorkflowService]:
    """The workflow service of a platform with the installed plugins plus ``plugins`` (by
    name), on the fixed clock and sequential ids; closed on exit."""
    host = PluginHost()
    host.discover()
    for name, plugin in plugins.items():
        host.register(plugin, name)
    platform = await Platform.boot(
        Settings(database_url=database_url),
        clock=clock,
        ids=SequentialIdGen(clock),
        host=host,
        upgrade=False,
    )
    try:
        yield service_of(platform)
    finally:
        await platform.close()
