"""A booted platform with the workflow service and an e-SIC-like definition published: the
answer task carries a boundary timer named ``prazo``, the name the tests give the deadline."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.settings import Settings
from services.workflow.bootstrap import WorkflowService, service_of
from tests.integration.deadlines.esic import ESIC, OFFICER


@pytest.fixture
async def wf(database_url: str, clock: FixedClock) -> AsyncIterator[WorkflowService]:
    platform = await Platform.boot(
        Settings(database_url=database_url),
        clock=clock,
        ids=SequentialIdGen(clock),
        upgrade=False,
    )
    try:
        service = service_of(platform)
        await service.engine.publisher.publish(ESIC, actor=OFFICER)
        yield service
    finally:
        await platform.close()
