"""``core_0002`` seals the audit rows written before the chain existed, in ``seq`` order."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
import sqlalchemy as sa
from alembic import command

from core import migrate
from core.audit_verify import verify_chain
from core.db import create_engine, sync_url
from tests.conftest import PG_ADMIN_URL

LEGACY = sa.text(
    "INSERT INTO core_audit_log (id, at, action, object_type, object_id, actor_kind, actor_id, "
    "after) VALUES (:id, :at, 'legacy.did', 'thing', :n, 'user', 'u-1', :after)"
)


@pytest.fixture
def fresh_url(database_url: str, tmp_path: Path) -> Iterator[str]:
    """An empty database of the same backend as ``database_url`` (which is already migrated)."""
    if database_url.startswith("sqlite"):
        yield f"sqlite+aiosqlite:///{tmp_path / 'fresh.db'}"
        return
    name = f"tramita_mig_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    yield f"{PG_ADMIN_URL.rsplit('/', 1)[0]}/{name}".replace(
        "postgresql://", "postgresql+psycopg://"
    )
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _upgrade_to(url: str, target: str) -> None:
    cfg = migrate._config({})
    engine = sa.create_engine(sync_url(url))
    try:
        with engine.begin() as connection:
            cfg.attributes["connection"] = connection
            command.upgrade(cfg, target)
    finally:
        engine.dispose()


async def test_rows_written_before_the_chain_are_sealed_by_the_migration(fresh_url: str) -> None:
    await asyncio.to_thread(_upgrade_to, fresh_url, "core_0001")
    engine = sa.create_engine(sync_url(fresh_url))
    with engine.begin() as conn:
        for n in range(3):
            conn.execute(
                LEGACY,
                {
                    "id": str(uuid.uuid4()),
                    "at": datetime(2026, 1, 1, tzinfo=UTC),
                    "n": str(n),
                    "after": '{"status": "done"}',
                },
            )
    engine.dispose()
    await asyncio.to_thread(_upgrade_to, fresh_url, "core_0002")
    engine = sa.create_engine(sync_url(fresh_url))
    with engine.connect() as conn:
        head = conn.execute(sa.text("SELECT hash FROM core_audit_log ORDER BY seq DESC")).first()
    engine.dispose()
    # core_0007 spreads the log over several chains: the sealed rows become chain 0, intact,
    # with the head they had.
    await asyncio.to_thread(_upgrade_to, fresh_url, "core_0007")
    database = create_engine(fresh_url)
    async with database.connect() as conn:
        report = await verify_chain(conn)
    await database.dispose()
    assert (report.ok, report.checked) == (True, 3)
    assert head is not None
    assert [(h.chain, h.entries, h.head_hash) for h in report.chains] == [(0, 3, head.hash)]
