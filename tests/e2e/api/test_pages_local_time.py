"""Admin pages and the public timeline show times in ``TRAMITA_TIMEZONE`` (settings.timezone),
not in a fixed zone: the same instance read by a city in Manaus (UTC-4)."""

from __future__ import annotations

from collections.abc import AsyncIterator

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


@pytest.fixture
async def manaus(database_url: str, clock: FixedClock) -> AsyncIterator[Platform]:
    host = PluginHost()
    host.discover(groups=["tramita.services"])
    host.register(EsicLikePlugin(), "esic_like_test")
    platform = await Platform.boot(
        Settings(database_url=database_url, timezone="America/Manaus"),
        clock=clock,
        ids=SequentialIdGen(clock),
        host=host,
        upgrade=False,
    )
    yield platform
    await platform.close()


async def test_the_instance_page_shows_the_start_in_the_configured_zone(
    manaus: Platform,
) -> None:
    # The fixed clock is 02/03/2026 12:00 UTC: 08:00 in Manaus (09:00 in Brasília).
    service = service_of(manaus)
    view = await service.engine.start(
        StartRequest(definition_key="esic_like.request", context=PERSONAL)
    )
    await service.delivery.drain()
    await manaus.directory.ensure_profile("admin", "Admin", ["workflow.read", "workflow.operate"])
    user = await manaus.directory.create_user("admin-user", display_name="Admin", profile="admin")
    session = await open_session(manaus, user.id)
    async with client_for(manaus) as client:
        client.cookies.set(SESSION_COOKIE, str(session.value))
        page = await client.get(f"/cms/workflow/instances/{view.id}")
        assert page.status_code == 200, page.text
        assert "02/03/2026 08:00" in page.text and "02/03/2026 09:00" not in page.text
        deadlines = await client.get(f"/cms/workflow/instances/{view.id}/deadlines")
        assert deadlines.status_code == 200, deadlines.text
