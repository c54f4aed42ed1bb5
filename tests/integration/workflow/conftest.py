"""A booted platform with the workflow service and the purchase test plugin."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from tests.fakes.boot import booted
from tests.fakes.purchase import PurchasePlugin
from tests.integration.human.casework import enrol


@pytest.fixture
def purchase() -> PurchasePlugin:
    return PurchasePlugin()


@pytest.fixture
async def wf(
    database_url: str, clock: FixedClock, purchase: PurchasePlugin
) -> AsyncIterator[WorkflowService]:
    async with booted(database_url, clock, purchase_test=purchase) as service:
        await enrol(
            service,
            "purchase.managers",
            "manager-1",
            "manager-9",
            "requester-1",
            *[f"manager-{i}" for i in range(10)],
        )
        yield service
