"""The case search page reads its day filters in ``TRAMITA_TIMEZONE`` (settings.timezone):
the same start instant falls on another local day, and so is found by another day's filter,
in another zone (SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from contracts.workflow.types import StartRequest
from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.plugins import PluginHost
from core.settings import Settings
from services.workflow.bootstrap import service_of
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.apps import client_for
from tests.e2e.api.esic_like import PERSONAL, EsicLikePlugin

STARTED = datetime(2026, 3, 3, 2, 30, tzinfo=UTC)
"""23:30 on 02/03 in Brasília (UTC-3), 00:30 on 03/03 in Fernando de Noronha (UTC-2)."""


@pytest.fixture(params=[("America/Sao_Paulo", "2026-03-02"), ("America/Noronha", "2026-03-03")])
def zone_and_day(request: pytest.FixtureRequest) -> tuple[str, str]:
    zone, day = request.param
    return str(zone), str(day)


@pytest.fixture
async def zoned(
    database_url: str, clock: FixedClock, zone_and_day: tuple[str, str]
) -> AsyncIterator[Platform]:
    host = PluginHost()
    host.discover(groups=["tramita.services"])
    host.register(EsicLikePlugin(), "esic_like_test")
    platform = await Platform.boot(
        Settings(database_url=database_url, timezone=zone_and_day[0]),
        clock=clock,
        ids=SequentialIdGen(clock),
        host=host,
        upgrade=False,
    )
    yield platform
    await platform.close()


async def test_a_day_filter_finds_the_cases_started_on_that_local_day_of_the_configured_zone(
    zoned: Platform, clock: FixedClock, zone_and_day: tuple[str, str]
) -> None:
    _, local_day = zone_and_day
    other_day = "2026-03-03" if local_day == "2026-03-02" else "2026-03-02"
    clock.set(STARTED)
    service = service_of(zoned)
    view = await service.engine.start(
        StartRequest(definition_key="esic_like.request", context=PERSONAL)
    )
    await service.delivery.drain()
    await zoned.directory.ensure_profile("reader", "Reader", ["workflow.read"])
    user = await zoned.directory.create_user("reader-user", display_name="R", profile="reader")
    session = await open_session(zoned, user.id)
    async with client_for(zoned) as client:
        client.cookies.set(SESSION_COOKIE, str(session.value))
        found = await client.get(
            "/cms/workflow/search", params={"from": local_day, "to": local_day}
        )
        assert found.status_code == 200, found.text
        assert view.protocol in found.text
        missed = await client.get(
            "/cms/workflow/search", params={"from": other_day, "to": other_day}
        )
        assert missed.status_code == 200, missed.text
        assert view.protocol not in missed.text
