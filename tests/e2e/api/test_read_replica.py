"""Read-heavy pages on a PostgreSQL replica (issue #25 item 6): with
``TRAMITA_READ_DATABASE_URL`` set, case search and the dashboards read there, while the case
itself, its history and tasks, the inbox and every write stay on ``TRAMITA_DATABASE_URL``.

A real hot standby replays the primary's WAL, so its rows are the primary's a moment later. To
show *which* database each read goes to, the stand-in here is a second, migrated, empty
database: a read served by the replica does not find the case the primary holds.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest
from litestar.testing import AsyncTestClient

from contracts.errors import ConfigurationError
from core import migrate
from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.plugins import PluginHost
from core.settings import Settings, load_settings
from services.workflow.bootstrap import service_of
from tests.apps import app_for
from tests.conftest import PG_ADMIN_URL, _branches
from tests.e2e.api.conftest import make_users
from tests.e2e.api.esic_like import EsicLikePlugin
from tests.fakes.purchase import PurchasePlugin, order

pytestmark = pytest.mark.postgresql_only


@pytest.fixture
def replica_url() -> Iterator[str]:
    name = f"tramita_replica_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN_URL.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1)
    url = f"{base}/{name}"
    migrate.upgrade(url, _branches())
    yield url
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def test_search_and_dashboards_read_the_replica_the_case_reads_the_database(
    database_url: str, replica_url: str, clock: FixedClock
) -> None:
    host = PluginHost()
    host.discover(groups=["tramita.services"])
    host.register(PurchasePlugin(), "purchase_test")
    host.register(EsicLikePlugin(), "esic_like_test")
    platform = await Platform.boot(
        Settings(database_url=database_url, read_database_url=replica_url),
        clock=clock,
        ids=SequentialIdGen(clock),
        host=host,
        upgrade=False,
    )
    try:
        assert platform.read_database is platform.replica
        assert platform.read_database is not platform.database
        tokens = await make_users(platform)
        auth = {"Authorization": f"Bearer {tokens['admin']}"}
        with app_for(platform) as app:
            async with AsyncTestClient(app=app) as client:
                started = await client.post(
                    "/api/v1/instances",
                    json={"definition_key": "purchase.approval", "context": order(5000)},
                    headers=auth,
                )
                assert started.status_code == 201, started.text
                await service_of(platform).delivery.drain()
                case = started.json()["id"]
                # The case, its history and its tasks: the database, at once.
                one = await client.get(f"/api/v1/instances/{case}", headers=auth)
                assert one.status_code == 200 and one.json()["id"] == case
                history = await client.get(f"/api/v1/instances/{case}/history", headers=auth)
                assert history.status_code == 200 and history.json()
                # Search: the replica, which (in this stand-in) never received the case.
                found = await client.get("/api/v1/instances", headers=auth)
                assert found.status_code == 200
                assert [row["id"] for row in found.json()["items"]] == []
        # The dashboards' reads go to the replica too; the inbox stays on the database.
        service = service_of(platform)
        assert service.dashboard._engine is platform.replica  # type: ignore[attr-defined]
        assert service.reads._replica is platform.replica  # type: ignore[attr-defined]
        assert service.reads._engine is platform.database  # type: ignore[attr-defined]
    finally:
        await platform.close()


async def test_without_a_replica_every_read_goes_to_the_database(
    database_url: str, clock: FixedClock
) -> None:
    platform = await Platform.boot(
        Settings(database_url=database_url), clock=clock, ids=SequentialIdGen(clock), upgrade=False
    )
    try:
        assert platform.replica is None
        assert platform.read_database is platform.database
    finally:
        await platform.close()


@pytest.mark.parametrize(
    "env",
    [
        {"TRAMITA_READ_DATABASE_URL": "postgresql://replica/tramita"},
        {
            "TRAMITA_DATABASE_URL": "postgresql://primary/tramita",
            "TRAMITA_READ_DATABASE_URL": "sqlite:///replica.db",
        },
    ],
)
def test_a_replica_needs_postgresql_on_both_sides(env: dict[str, str]) -> None:
    with pytest.raises(ConfigurationError, match="TRAMITA_READ_DATABASE_URL needs PostgreSQL"):
        load_settings(env)


def test_the_replica_url_is_read_and_normalised() -> None:
    settings = load_settings(
        {
            "TRAMITA_DATABASE_URL": "postgresql://primary/tramita",
            "TRAMITA_READ_DATABASE_URL": "postgres://standby/tramita",
        }
    )
    assert settings.read_database_url == "postgresql+psycopg://standby/tramita"
