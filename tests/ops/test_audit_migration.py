"""``core_0002`` seals the audit rows written before the chain existed, in ``seq`` order;
``core_0009`` makes them the deployment's tenant's, hashes unchanged."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import psycopg
import pytest
import sqlalchemy as sa
from alembic import command

from contracts.kernel import Actor, AuditEntry
from core import migrate
from core.audit import GENESIS, SqlAuditWriter, legacy_entry_hash
from core.audit_verify import verify_chain
from core.clock import FixedClock
from core.db import create_engine, sync_url
from core.ids import SequentialIdGen
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
    # core_0007 spreads the log over several chains, core_0009 gives each tenant its own: the
    # sealed rows become the deployment's tenant's chain 0, intact, with the head they had.
    await asyncio.to_thread(_upgrade_to, fresh_url, "core_0009")
    database = create_engine(fresh_url)
    async with database.connect() as conn:
        report = await verify_chain(conn)
    await database.dispose()
    assert (report.ok, report.checked) == (True, 3)
    assert head is not None
    assert [(h.tenant, h.chain, h.entries, h.head_hash) for h in report.chains] == [
        ("default", 0, 3, head.hash)
    ]


LEGACY_SEALED = sa.text(
    "INSERT INTO core_audit_log (id, at, action, object_type, object_id, actor_kind, actor_id, "
    "after, prev_hash, hash) VALUES (:id, :at, :action, :object_type, :object_id, :actor_kind, "
    ":actor_id, :after_json, :prev_hash, :hash)"
)


def _legacy_log(url: str, rows: int) -> str:
    """``rows`` entries as a writer at ``core_0008`` sealed them (chain 0, no tenant hashed);
    returns the ``head_hash`` that ``tramita audit verify`` printed then."""
    _upgrade_to(url, "core_0008")
    engine = sa.create_engine(sync_url(url))
    prev = GENESIS
    with engine.begin() as conn:
        for n in range(rows):
            values = {
                "id": str(uuid.uuid4()), "at": datetime(2026, 1, 1, n, tzinfo=UTC),
                "action": "legacy.did", "object_type": "thing", "object_id": str(n),
                "actor_kind": "user", "actor_id": "u-1", "before": None,
                "after": {"status": "done"}, "reason": None, "correlation_id": None,
            }  # fmt: skip
            digest = legacy_entry_hash(values, prev)
            sealed = {"after_json": '{"status": "done"}', "prev_hash": prev, "hash": digest}
            conn.execute(LEGACY_SEALED, {**values, **sealed})
            prev = digest
    engine.dispose()
    return hashlib.sha256(msgspec.json.encode([[0, prev]])).hexdigest()


async def test_rows_before_tenants_become_the_deployment_tenants_and_still_verify(
    fresh_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAMITA_TENANT", "prefeitura")
    kept = await asyncio.to_thread(_legacy_log, fresh_url, 3)
    await asyncio.to_thread(_upgrade_to, fresh_url, "core_0009")
    database = create_engine(fresh_url)
    clock = FixedClock(datetime(2026, 2, 1, tzinfo=UTC))
    writer = SqlAuditWriter(clock, SequentialIdGen(clock), chains=1, tenant="prefeitura")
    try:
        async with database.connect() as conn:
            before = await verify_chain(conn, legacy_tenant="prefeitura")
        assert (before.ok, before.tenant_heads) == (True, {"prefeitura": kept})
        for tenant in ("prefeitura", "outra", None):
            async with database.begin() as conn:
                await writer.append(
                    conn,
                    AuditEntry(
                        action="test.did", object_type="thing", object_id="x",
                        actor=Actor(id="u-2"), tenant=tenant,
                    ),
                )  # fmt: skip
        async with database.connect() as conn:
            after = await verify_chain(conn, legacy_tenant="prefeitura")
            elsewhere = await verify_chain(conn, legacy_tenant="default")
    finally:
        await database.dispose()
    assert after.ok, after
    assert [(h.tenant, h.chain, h.entries, h.legacy) for h in after.chains] == [
        ("outra", 0, 1, False),
        ("prefeitura", 0, 5, False),
    ]
    # Rows hashed without a tenant are accepted only as the deployment's tenant's.
    assert (elsewhere.broken_tenant, elsewhere.problem) == ("prefeitura", "content_changed")
