"""Shared fixtures: the database backends, a fixed clock and a booted platform.

The backend comes from ``TRAMITA_TEST_BACKEND`` (``sqlite``, ``postgresql`` or ``all``, the
default): tests that take ``database_url`` run once per selected backend and are marked ``db``.
In CI (``CI=true``) an unreachable PostgreSQL or Redis is an error, never a skip.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest

from core import migrate
from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.plugins import PluginHost
from core.settings import Settings

IN_CI = os.environ.get("CI", "").lower() == "true"
PG_ADMIN_URL = os.environ.get("TRAMITA_TEST_PG_ADMIN", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("TRAMITA_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
T0 = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def _backends() -> list[str]:
    chosen = os.environ.get("TRAMITA_TEST_BACKEND", "all")
    return ["sqlite", "postgresql"] if chosen == "all" else [chosen]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "database_url" in metafunc.fixturenames:
        metafunc.parametrize("backend", _backends(), indirect=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "database_url" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.db)
    # A test about PostgreSQL alone has no SQLite variant: deselected, not skipped.
    sqlite_only_variants = [
        item
        for item in items
        if isinstance(item, pytest.Function)
        and item.get_closest_marker("postgresql_only")
        and getattr(item, "callspec", None) is not None
        and item.callspec.params.get("backend") == "sqlite"
    ]
    if sqlite_only_variants:
        config.hook.pytest_deselected(items=sqlite_only_variants)
        items[:] = [item for item in items if item not in sqlite_only_variants]
    # The slow tests (real processes, seconds to a minute each) first: pytest-xdist's worksteal
    # gives each worker a contiguous share and an idle worker steals from the end of another's,
    # so a minute-long test never starts last while the other core has nothing left to do.
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def unavailable(what: str, why: str) -> None:
    message = f"{what} unavailable: {why}"
    if IN_CI:
        pytest.fail(message + " (CI must run these tests)")
    pytest.skip(message)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """A fresh PostgreSQL database for this test session, migrated once, dropped at the end."""
    name = f"tramita_test_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    try:
        admin = psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        unavailable("PostgreSQL", type(exc).__name__)
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        # A commit here does not wait for its WAL to reach the disk (1-2 ms each on this VM,
        # hundreds per test). What a test can observe is unchanged: a commit is visible at
        # once, and the crash tests kill our processes, not the server, whose WAL keeps every
        # commit that returned. Only a server crash could lose the last ones: a test database
        # does not survive that anyway. Production and the benchmarks keep the server default.
        admin.execute(f'ALTER DATABASE "{name}" SET synchronous_commit = off')
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    url = f"{base}/{name}".replace("postgresql://", "postgresql+psycopg://", 1)
    migrate.upgrade(url, _branches())
    yield url
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _branches() -> dict[str, Path]:
    host = PluginHost()
    host.discover()
    return host.collect().migrations


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated SQLite file, copied for each test (migrating per test would be slow)."""
    path = tmp_path_factory.mktemp("template") / "template.db"
    migrate.upgrade(f"sqlite+aiosqlite:///{path}", _branches())
    return path


_USED = """
SELECT c.relname
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> 'alembic_version'
  AND (
    -- the planner's estimate is not enough (a test's rows are not analysed yet): look
    pg_catalog.pg_relation_size(c.oid) > 0
    OR EXISTS (
      SELECT 1 FROM pg_depend d JOIN pg_sequences s
        ON s.schemaname = 'public' AND s.sequencename = (
          SELECT relname FROM pg_class WHERE oid = d.objid)
      WHERE d.refobjid = c.oid AND d.deptype IN ('a', 'i') AND s.last_value IS NOT NULL
    )
  )
"""
"""The tables a test may have written: those whose heap has any page (a table never written
has none; one emptied by DELETE still has its pages) and those whose own identity sequence
was used. TRUNCATE on these alone leaves the database exactly as TRUNCATE on every table would
(RESTART IDENTITY resets only a truncated table's own sequences), in a fraction of the time."""


def _truncate_all(url: str) -> None:
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://", 1)) as conn:
        names = [row[0] for row in conn.execute(_USED)]
        if names:
            quoted = ", ".join(f'"{name}"' for name in names)
            conn.execute(f"TRUNCATE {quoted} RESTART IDENTITY CASCADE")


@pytest.fixture
def database_url(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> str:
    """A migrated, empty database of the parametrised backend (and a documents directory of
    the test's own, so generated documents never land in the checkout)."""
    if "TRAMITA_WF_DOCUMENTS_DIR" not in os.environ:
        monkeypatch.setenv("TRAMITA_WF_DOCUMENTS_DIR", str(tmp_path / "documents"))
    if backend == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        path = tmp_path / "tramita.db"
        shutil.copy(template, path)
        return f"sqlite+aiosqlite:///{path}"
    url: str = request.getfixturevalue("pg_database")
    _truncate_all(url)
    return url


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(T0)


@pytest.fixture
async def platform(database_url: str, clock: FixedClock) -> AsyncIterator[Platform]:
    settings = Settings(database_url=database_url)
    booted = await Platform.boot(settings, clock=clock, ids=SequentialIdGen(clock), upgrade=False)
    yield booted
    await booted.close()


@pytest.fixture
def redis_url() -> str:
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.exceptions.ConnectionError as exc:
        unavailable("Redis", type(exc).__name__)
    finally:
        client.close()
    return REDIS_URL
