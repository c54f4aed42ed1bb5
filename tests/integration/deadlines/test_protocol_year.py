"""The protocol number's year is the jurisdiction's local year (``settings.timezone``), handed
to the engine at construction: a case filed at 23:30 on 31/12/2026 in Brasília is already
2027 in UTC, and in Fernando de Noronha (UTC-2) it is already 00:30 of 01/01/2027 locally."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from contracts.workflow.types import StartRequest
from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.settings import Settings
from services.workflow.bootstrap import service_of
from tests.integration.deadlines.esic import ESIC, OFFICER

FILED = datetime(2026, 12, 31, 23, 30, tzinfo=ZoneInfo("America/Sao_Paulo"))


@pytest.mark.parametrize(
    ("zone", "year"),
    [("America/Sao_Paulo", 2026), ("America/Noronha", 2027), ("UTC", 2027)],
)
async def test_a_case_filed_at_2330_on_new_years_eve_is_numbered_in_the_local_year(
    database_url: str, clock: FixedClock, zone: str, year: int
) -> None:
    clock.set(FILED)
    platform = await Platform.boot(
        Settings(database_url=database_url, timezone=zone),
        clock=clock,
        ids=SequentialIdGen(clock),
        upgrade=False,
    )
    try:
        service = service_of(platform)
        await service.engine.publisher.publish(ESIC, actor=OFFICER)
        view = await service.engine.start(
            StartRequest(definition_key="esic.request", actor=OFFICER)
        )
    finally:
        await platform.close()
    assert view.protocol == f"SIC-{year}-000001"
