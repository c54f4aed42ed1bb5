"""A booted platform with the workflow service, the purchase plugin and the casework plugin."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.plugins import PluginHost
from core.settings import Settings
from services.workflow.bootstrap import WorkflowService
from services.workflow.plugin import service_of
from tests.fakes.purchase import PurchasePlugin
from tests.integration.human.casework import CaseworkPlugin


@pytest.fixture
def casework() -> CaseworkPlugin:
    return CaseworkPlugin()


@pytest.fixture
async def wf(
    database_url: str, clock: FixedClock, casework: CaseworkPlugin
) -> AsyncIterator[WorkflowService]:
    host = PluginHost()
    host.discover()
    host.register(PurchasePlugin(), "purchase_test")
    host.register(casework, "casework_test")
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
