"""A booted platform with the workflow service, the purchase test plugin and a migrator."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.plugins import PluginHost
from core.settings import Settings
from services.workflow.bootstrap import WorkflowService, service_of
from services.workflow.runtime.services.migration import Migrator
from tests.fakes.purchase import PurchasePlugin


@pytest.fixture
def purchase() -> PurchasePlugin:
    return PurchasePlugin()


@pytest.fixture
async def wf(
    database_url: str, clock: FixedClock, purchase: PurchasePlugin
) -> AsyncIterator[WorkflowService]:
    host = PluginHost()
    host.discover(groups=["tramita.services"])  # the domain modules play no part here
    host.register(purchase, "purchase_test")
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


@pytest.fixture
def migrator(wf: WorkflowService) -> Migrator:
    return Migrator(wf.engine, wf.uow_factory)
