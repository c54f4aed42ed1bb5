"""The module team's own fixtures: a database per test on SQLite and PostgreSQL, a fixed clock,
and a platform booted with only this module (plain mode) or with the workflow service too.

The module is registered as a plugin object here (``host.register``), so these tests run from a
checkout without installing the package; discovery through the entry point is proved by the
platform's own test (tests/integration/modules in the Tramita repository).
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))  # the package, from a plain checkout

from tramita_alvara import plugin

from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.plugins import PluginHost
from core.settings import Settings

PG_ADMIN_URL = os.environ.get("TRAMITA_TEST_PG_ADMIN", "postgresql://postgres@127.0.0.1:5432/test")
T0 = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def _backends() -> list[str]:
    chosen = os.environ.get("TRAMITA_TEST_BACKEND", "all")
    return ["sqlite", "postgresql"] if chosen == "all" else [chosen]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "database_url" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.db)


@pytest.fixture(params=_backends())
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'alvara.db'}"
        return
    name = f"alvara_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    yield f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(T0)


async def boot(database_url: str, clock: FixedClock, *, engine: bool) -> Platform:
    host = PluginHost()
    if engine:
        host.discover(groups=["tramita.services"])  # the workflow service, when installed
    host.register(plugin, "alvara")
    return await Platform.boot(
        Settings(database_url=database_url),
        clock=clock,
        ids=SequentialIdGen(clock),
        host=host,
        upgrade=True,  # the kernel's branches and this module's (alvara_0001)
    )


@pytest.fixture
async def plain(database_url: str, clock: FixedClock) -> AsyncIterator[Platform]:
    platform = await boot(database_url, clock, engine=False)
    assert platform.plain_mode
    try:
        yield platform
    finally:
        await platform.close()


@pytest.fixture
async def with_engine(database_url: str, clock: FixedClock) -> AsyncIterator[Platform]:
    """Booted with the workflow service (the with_engine/ tests need it installed)."""
    platform = await boot(database_url, clock, engine=True)
    assert not platform.plain_mode
    try:
        yield platform
    finally:
        await platform.close()
