"""Messages to an event gateway over HTTP, on SQLite and PostgreSQL (issue #24 item 3):
``POST /api/v1/messages`` finds the case by business key; the first message wins the race and
its timer never fires, and a message arriving after the timer won gets the same answer as a
message nobody waits for."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from core.app import Platform
from core.auth import issue_token
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.plugins import PluginHost
from core.settings import Settings
from services.workflow.bootstrap import WorkflowService, service_of
from tests.apps import client_for
from tests.integration.workflow.test_event_gateway import RacePlugin


@dataclass
class Api:
    client: AsyncTestClient  # type: ignore[type-arg]
    headers: dict[str, str]
    service: WorkflowService
    platform: Platform
    user_id: str

    def renew(self) -> None:
        """A fresh token after the clock moved past the old one's lifetime."""
        now = self.platform.clock.now()
        token = issue_token(self.platform.settings.secret_key, self.user_id, now=now)
        self.headers = {"Authorization": f"Bearer {token}"}

    async def start(self, key: str) -> str:
        started = await self.client.post(
            "/api/v1/instances",
            json={"definition_key": "race.demand", "context": {}, "business_key": key},
            headers=self.headers,
        )
        assert started.status_code == 201, started.text
        return str(started.json()["id"])

    async def message(self, key: str, name: str) -> Any:
        return await self.client.post(
            "/api/v1/messages",
            json={"name": name, "business_key": key, "payload": {"doc": "D-1"}},
            headers=self.headers,
        )


@pytest.fixture
async def api(database_url: str, clock: FixedClock) -> AsyncIterator[Api]:
    host = PluginHost()
    host.discover(groups=["tramita.services"])
    host.register(RacePlugin(), "race_test")
    platform = await Platform.boot(
        Settings(database_url=database_url),
        clock=clock,
        ids=SequentialIdGen(clock),
        host=host,
        upgrade=False,
    )
    try:
        rights = ["workflow.read", "workflow.start", "workflow.tasks", "workflow.admin"]
        await platform.directory.ensure_profile("admin", "Admin", rights)
        user = await platform.directory.create_user("admin-user", display_name="A", profile="admin")
        token = issue_token(platform.settings.secret_key, user.id, now=platform.clock.now())
        async with client_for(platform) as client:
            headers = {"Authorization": f"Bearer {token}"}
            yield Api(client, headers, service_of(platform), platform, user.id)
    finally:
        await platform.close()


async def test_the_first_message_wins_and_a_late_one_is_answered_like_an_unknown_one(
    api: Api, clock: FixedClock
) -> None:
    answered = await api.start("PROC-1")
    lapsing = await api.start("PROC-2")
    first = await api.message("PROC-1", "reply")
    assert first.status_code == 200, first.text
    assert first.json()["id"] == answered
    clock.advance(timedelta(days=10))
    assert await api.service.engine.tick() == 1  # PROC-1's timer was cancelled with its win
    api.renew()
    late = await api.message("PROC-2", "reply")
    unknown = await api.message("PROC-2", "nobody_waits_for_this")
    assert late.status_code == unknown.status_code == 409, late.text
    assert late.json()["code"] == unknown.json()["code"] == "no_receiver"
    same = {k: v for k, v in late.json().items() if k != "node_id"}
    assert same == {k: v for k, v in unknown.json().items() if k != "node_id"}
    await api.service.delivery.drain()
    for instance_id, branch in ((answered, "answered"), (lapsing, "lapsed")):
        view = await api.service.engine.status(instance_id)
        assert view.status == "completed"
        history = await api.service.engine.history(instance_id)
        assert [h.to_node for h in history if h.to_node in ("answered", "lapsed")] == [branch]
