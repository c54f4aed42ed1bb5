"""Pooled PostgreSQL connections are pinged only after sitting idle: a dead idle connection is
replaced without the caller noticing, and a busy pool pays no ping per transaction."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from core.db import create_engine
from tests.conftest import PG_ADMIN_URL

# SQLite opens a connection per use (no pool to ping): these run on PostgreSQL only.
pytestmark = pytest.mark.postgresql_only


@pytest.fixture
def pg_url(database_url: str) -> str:
    return database_url


def _kill_connections(url: str) -> int:
    """Terminate every server process connected to the test database (a server restart, as
    seen by the pool)."""
    name = make_url(url).database
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        ).fetchall()
    return len(rows)


async def _one(engine: AsyncEngine) -> int:
    async with engine.connect() as conn:
        return int((await conn.execute(sa.text("SELECT 1"))).scalar_one())


async def test_a_dead_connection_that_sat_idle_is_replaced_transparently(pg_url: str) -> None:
    engine = create_engine(pg_url, ping_after_idle_s=0.2)
    try:
        assert await _one(engine) == 1
        assert _kill_connections(pg_url) == 1
        await asyncio.sleep(0.3)
        assert await _one(engine) == 1  # pinged on checkout, found dead, replaced
    finally:
        await engine.dispose()


async def test_a_connection_reused_at_once_is_not_pinged(pg_url: str) -> None:
    """The price of skipping the ping: one transaction meets the dead connection and fails;
    the pool then drops every connection made before it, and the next one works."""
    engine = create_engine(pg_url, ping_after_idle_s=60)
    try:
        assert await _one(engine) == 1
        assert _kill_connections(pg_url) == 1
        with pytest.raises(DBAPIError) as failed:
            await _one(engine)
        assert failed.value.connection_invalidated
        assert await _one(engine) == 1
    finally:
        await engine.dispose()
