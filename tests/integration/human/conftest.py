"""A booted platform with the workflow service, the purchase plugin and the casework plugin."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from tests.fakes.boot import booted
from tests.fakes.purchase import PurchasePlugin
from tests.integration.human.casework import CaseworkPlugin


@pytest.fixture
def casework() -> CaseworkPlugin:
    return CaseworkPlugin()


@pytest.fixture
async def wf(
    database_url: str, clock: FixedClock, casework: CaseworkPlugin
) -> AsyncIterator[WorkflowService]:
    async with booted(
        database_url, clock, purchase_test=PurchasePlugin(), casework_test=casework
    ) as service:
        yield service
