"""PostgreSQL: the checked updates of several instance rows held in one unit of work (a tick's
batch) travel as one ``UPDATE ... FROM (VALUES ...)``; a row whose version moved fails all of
them, as ``ConcurrentModification``, and no row changes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from contracts.errors import ConcurrentModification
from core import pg_batch
from core.audit import SqlAuditWriter
from core.clock import FixedClock
from core.db import create_engine
from core.ids import SequentialIdGen
from services.workflow.persistence import tables as t
from services.workflow.persistence.unit_of_work import SqlUnitOfWork

pytestmark = pytest.mark.postgresql_only

NOW = datetime(2026, 12, 8, 12, 0, 0, 123456, tzinfo=UTC)
IDS = [f"0190d1a0-0000-7000-8000-{n:012d}" for n in (3, 1, 2)]
VERSION = "0190d1a0-0000-7000-8000-100000000000"
HOSTILE = "'); DROP TABLE workflow_instances; -- \\ $$ ção 😀"


@pytest.fixture
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(database_url, pool_size=2)
    definition = "0190d1a0-0000-7000-8000-200000000000"
    async with engine.begin() as conn:
        await conn.execute(
            t.definitions.insert(),
            {"id": definition, "key": "joined", "name": "Joined", "created_at": NOW},
        )
        await conn.execute(
            t.versions.insert(),
            {
                "id": VERSION,
                "definition_id": definition,
                "version": 1,
                "status": "published",
                "checksum": "x",
                "schema": "{}",
                "created_at": NOW,
            },
        )
        await conn.execute(t.instances.insert(), [_row(i, n) for n, i in enumerate(IDS)])
    yield engine
    await engine.dispose()


def _row(instance_id: str, n: int) -> dict[str, Any]:
    return {
        "id": instance_id,
        "tenant": "default",
        "version_id": VERSION,
        "definition_key": "joined",
        "definition_version": 1,
        "protocol": f"JND-{n}",
        "status": "running",
        "current_nodes": ["wait"],
        "state": {"n": n},
        "context": {},
        "due_at": NOW,
        "started_at": NOW,
        "updated_at": NOW,
        "ended_at": None,
        "row_version": 1,
    }


def _uow(engine: AsyncEngine) -> SqlUnitOfWork:
    clock = FixedClock(NOW)
    ids = SequentialIdGen(clock)
    return SqlUnitOfWork(engine, clock, ids, SqlAuditWriter(clock, ids))


async def _update_all(engine: AsyncEngine, before_commit: Any = None) -> None:
    """Every instance moved on by one version, mixing values, NULLs and hostile text
    (``before_commit``: run after the reads, just before the commit)."""
    async with _uow(engine) as uow:
        records = [await uow.instances.get(i) for i in IDS]  # all read before any update
        for n, record in enumerate(records):
            assert record is not None
            ended = n % 2 == 0
            changed = msgspec.structs.replace(
                record,
                status="completed" if ended else "running",
                current_nodes=[] if ended else ["wait", HOSTILE],
                state={"n": n, "note": HOSTILE, "nested": [None, {"q": '"x"'}]},
                due_at=None if ended else NOW + timedelta(hours=n),
                updated_at=NOW + timedelta(seconds=1),
                ended_at=NOW + timedelta(seconds=1) if ended else None,
                row_version=record.row_version + 1,
            )
            await uow.instances.update(changed, expected_version=record.row_version)
        if before_commit is not None:
            await before_commit()
        await uow.commit()


async def _rows(engine: AsyncEngine) -> dict[str, dict[str, Any]]:
    async with engine.connect() as conn:
        rows = await conn.execute(sa.select(t.instances))
        return {r.id: dict(r._mapping) for r in rows}


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The statements of every batch sent (``pg_batch.send``)."""
    statements: list[bytes] = []
    send = pg_batch.send

    async def recording(driver: Any, batch: list[bytes], *, commit: bool) -> None:
        statements.extend(batch)
        await send(driver, batch, commit=commit)

    monkeypatch.setattr(pg_batch, "send", recording)
    return statements


async def test_updates_of_several_instances_are_one_statement_and_all_rows_change(
    engine: AsyncEngine, sent: list[bytes]
) -> None:
    await _update_all(engine)
    updates = [s for s in sent if s.startswith(b"UPDATE workflow_instances")]
    assert len(updates) == 1
    assert b"FROM (VALUES" in updates[0]
    rows = await _rows(engine)
    for n, instance_id in enumerate(IDS):
        row = rows[instance_id]
        ended = n % 2 == 0
        assert row["row_version"] == 2
        assert row["status"] == ("completed" if ended else "running")
        assert row["current_nodes"] == ([] if ended else ["wait", HOSTILE])
        assert row["state"] == {"n": n, "note": HOSTILE, "nested": [None, {"q": '"x"'}]}
        assert row["due_at"] == (None if ended else NOW + timedelta(hours=n))
        assert row["updated_at"] == NOW + timedelta(seconds=1)
        assert row["ended_at"] == (NOW + timedelta(seconds=1) if ended else None)
        assert row["protocol"] == f"JND-{n}"  # not among the columns written


async def test_a_moved_version_fails_the_joined_update_and_no_row_changes(
    engine: AsyncEngine,
) -> None:
    async def move_one() -> None:  # another transaction, after this one read the rows
        async with engine.begin() as conn:
            await conn.execute(
                t.instances.update()
                .where(t.instances.c.id == IDS[1])
                .values(row_version=5, status="moved")
            )

    with pytest.raises(ConcurrentModification) as raised:
        await _update_all(engine, move_one)
    assert raised.value.fields["instance_id"] in IDS
    rows = await _rows(engine)
    assert (rows[IDS[1]]["row_version"], rows[IDS[1]]["status"]) == (5, "moved")
    for n in (0, 2):
        assert (rows[IDS[n]]["row_version"], rows[IDS[n]]["state"]) == (1, {"n": n})


async def test_a_second_update_of_an_instance_is_sent_after_the_first(
    engine: AsyncEngine, sent: list[bytes]
) -> None:
    """Joined, the second update would be checked against the version before the first."""
    async with _uow(engine) as uow:
        records = [await uow.instances.get(i) for i in IDS]
        for record in records:
            assert record is not None
            await uow.instances.update(
                msgspec.structs.replace(record, row_version=2), expected_version=1
            )
        assert records[0] is not None
        again = msgspec.structs.replace(records[0], status="again", row_version=3)
        await uow.instances.update(again, expected_version=2)
        await uow.commit()
    assert len([s for s in sent if s.startswith(b"UPDATE workflow_instances")]) == 2
    rows = await _rows(engine)
    assert (rows[IDS[0]]["row_version"], rows[IDS[0]]["status"]) == (3, "again")
    assert [rows[i]["row_version"] for i in IDS[1:]] == [2, 2]
