"""A booted platform with the workflow service, the purchase and e-SIC-like test plugins, users
with different profiles, and an HTTP client for the application."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from contracts.kernel import Actor
from core.app import Platform
from core.auth import issue_token
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.plugins import PluginHost
from core.settings import Settings
from services.workflow.bootstrap import WorkflowService, service_of
from tests.apps import app_for
from tests.e2e.api.esic_like import EsicLikePlugin
from tests.fakes.purchase import PurchasePlugin

ALL_WORKFLOW = [
    "workflow.read",
    "workflow.publish",
    "workflow.start",
    "workflow.cancel",
    "workflow.operate",
    "workflow.tasks",
    "workflow.admin",
]
PROFILES = {
    "admin": ALL_WORKFLOW,
    "reader": ["workflow.read"],
    "requester": ["workflow.read", "workflow.start"],
    "manager": ["workflow.read", "workflow.tasks"],
    "nobody": [],
}


@dataclass
class Api:
    platform: Platform
    service: WorkflowService
    client: AsyncTestClient  # type: ignore[type-arg]
    purchase: PurchasePlugin
    tokens: dict[str, str] = field(default_factory=dict)

    def auth(self, user: str = "admin", **extra: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[user]}", **extra}

    async def drain(self) -> None:
        await self.service.delivery.drain()


async def boot_platform(database_url: str, clock: FixedClock, purchase: PurchasePlugin) -> Platform:
    host = PluginHost()
    host.discover(groups=["tramita.services"])  # the modules are not under test here
    host.register(purchase, "purchase_test")
    host.register(EsicLikePlugin(), "esic_like_test")
    platform = await Platform.boot(
        Settings(database_url=database_url),
        clock=clock,
        ids=SequentialIdGen(clock),
        host=host,
        upgrade=False,
    )
    return platform


QUEUE_MEMBERS = {"admin", "manager"}
QUEUES = ("purchase.managers", "esic_like.juridico")


async def make_users(platform: Platform) -> dict[str, str]:
    """One user per profile; the admin and the manager are members of the test queues."""
    tokens = {}
    catalog = service_of(platform).catalog
    for name, permissions in PROFILES.items():
        await platform.directory.ensure_profile(name, name.title(), permissions)
        user = await platform.directory.create_user(
            f"{name}-user", display_name=f"{name} user", profile=name
        )
        tokens[name] = issue_token(platform.settings.secret_key, user.id, now=platform.clock.now())
        if name in QUEUE_MEMBERS:
            for queue in QUEUES:
                await catalog.add_member(queue, user.id, actor=Actor.system("test"))
    return tokens


@pytest.fixture
def purchase() -> PurchasePlugin:
    return PurchasePlugin()


@pytest.fixture
async def api(database_url: str, clock: FixedClock, purchase: PurchasePlugin) -> AsyncIterator[Api]:
    platform = await boot_platform(database_url, clock, purchase)
    tokens = await make_users(platform)
    with app_for(platform) as app:
        async with AsyncTestClient(app=app) as client:
            yield Api(
                platform=platform,
                service=service_of(platform),
                client=client,
                purchase=purchase,
                tokens=tokens,
            )


async def start_purchase(api: Api, value: float, *, user: str = "requester", **headers: Any) -> Any:
    from tests.fakes.purchase import order

    response = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "purchase.approval", "context": order(value)},
        headers=api.auth(user, **headers),
    )
    assert response.status_code == 201, response.text
    await api.drain()
    return response.json()
