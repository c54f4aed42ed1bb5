"""A booted platform with the workflow service and the purchase test plugin."""

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
from tests.integration.human.casework import enrol


@pytest.fixture
def purchase() -> PurchasePlugin:
    return PurchasePlugin()


@pytest.fixture
async def wf(
    database_url: str, clock: FixedClock, purchase: PurchasePlugin
) -> AsyncIterator[WorkflowService]:
    host = PluginHost()
    host.discover()
    host.register(purchase, "purchase_test")
    platform = await Platform.boot(
        Settings(database_url=database_url),
        clock=clock,
        ids=SequentialIdGen(clock),
        host=host,
        upgrade=False,
    )
    try:
        service = service_of(platform)
        await enrol(
            service,
            "purchase.managers",
            "manager-1",
            "manager-9",
            "requester-1",
            *[f"manager-{i}" for i in range(10)],
        )
        yield service
    finally:
        await platform.close()
