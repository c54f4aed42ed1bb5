"""A platform booted with the domain modules only: the workflow service is not loaded."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.plugins import PluginHost
from core.settings import Settings


@pytest.fixture
async def plain(database_url: str, clock: FixedClock) -> AsyncIterator[Platform]:
    host = PluginHost()
    host.discover(groups=["tramita.modules"])
    platform = await Platform.boot(
        Settings(database_url=database_url),
        clock=clock,
        ids=SequentialIdGen(clock),
        host=host,
        upgrade=False,
    )
    assert platform.plain_mode
    try:
        yield platform
    finally:
        await platform.close()
