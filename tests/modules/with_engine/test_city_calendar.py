"""The flows count on the city's configured calendar (``TRAMITA_WF_CALENDAR``), the stored one,
not on a national calendar fixed at boot: a request received on Wednesday 19/08/2026 ends its
20 days on Tuesday 08/09, Vitória's anniversary. In Vitória it is due on 09/09; in a city on the
national calendar on 08/09 (engine level, SQLite and PostgreSQL, timers fired on the local day).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date, datetime

import pytest

from contracts.kernel import Actor
from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.settings import Settings
from services.workflow.bootstrap import service_of
from services.workflow.calendar import AnnualHoliday, CalendarSpec, seal_spec
from tests.modules.with_engine.conftest import Inbox
from tests.modules.with_engine.test_esic_flow import received
from tests.modules.with_engine.test_esic_legal_deadlines import BRT, fires_on, last_second

VITORIA = seal_spec(
    CalendarSpec(
        key="br-es-vitoria",
        version=1,
        subdivision="ES",
        municipal_holidays=(AnnualHoliday(name="Aniversário de Vitória", month=9, day=8),),
    )
)


@pytest.fixture
async def city(
    database_url: str,
    clock: FixedClock,
    smtp: tuple[Inbox, int],
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> AsyncIterator[Platform]:
    monkeypatch.setenv("TRAMITA_WF_CALENDAR", request.param)
    settings = Settings(
        database_url=database_url, smtp_host="127.0.0.1", smtp_port=smtp[1], smtp_from="sic@x.br"
    )
    platform = await Platform.boot(settings, clock=clock, ids=SequentialIdGen(clock), upgrade=False)
    try:
        await service_of(platform).deadlines.publish_calendar(VITORIA, Actor.system("test"))
        yield platform
    finally:
        await platform.close()


@pytest.mark.parametrize(
    ("city", "due"),
    [("br-es-vitoria", date(2026, 9, 9)), ("br-national", date(2026, 9, 8))],
    indirect=["city"],
)
async def test_the_anniversary_of_vitoria_moves_the_deadline_in_vitoria_only(
    city: Platform, clock: FixedClock, due: date
) -> None:
    service = service_of(city)
    clock.set(datetime(2026, 8, 19, 10, 0, tzinfo=BRT))
    rec = await received(city, service)
    assert rec.instance_id is not None
    (counted,) = await service.deadlines.counted(rec.instance_id)
    assert (counted.nominal_end, counted.due_on) == (date(2026, 9, 8), due)
    (tracked,) = await service.deadlines.show(rec.instance_id, "deadline")
    assert tracked.calendar_key == counted.calendar_key
    await fires_on(service, clock, last_second(due.year, due.month, due.day))
