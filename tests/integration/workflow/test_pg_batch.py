"""PostgreSQL: the held-back writes of a unit of work travel as one simple-protocol query with
their values quoted by psycopg (``pg_batch``). Values come back exactly, hostile ones
included; a failed statement leaves nothing behind and the connection as it was; a flushed
write whose transaction is not committed is rolled back."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
import sqlalchemy as sa
from psycopg.pq import TransactionStatus
from sqlalchemy.ext.asyncio import AsyncEngine

from core import pg_batch
from core.audit import CHAINED_INSERT, LOCK_CHAIN, SqlAuditWriter
from core.clock import FixedClock
from core.db import create_engine
from core.dbtypes import JSONType, UTCDateTime
from core.ids import SequentialIdGen
from services.workflow.persistence import statements as q
from services.workflow.persistence import tables as t
from services.workflow.persistence.unit_of_work import SqlUnitOfWork

pytestmark = pytest.mark.postgresql_only

NOW = datetime(2026, 11, 30, 12, 0, 0, 123456, tzinfo=UTC)
probe = sa.Table(
    "batch_probe",
    sa.MetaData(),
    sa.Column("id", sa.Uuid, primary_key=True),
    sa.Column("label", sa.Text),
    sa.Column("doc", JSONType),
    sa.Column("at", UTCDateTime),
    sa.Column("blob", sa.LargeBinary),
    sa.Column("n", sa.BigInteger),
    sa.Column("flag", sa.Boolean),
)
INSERT = probe.insert().inline()
HOSTILE = [
    "'); DROP TABLE batch_probe; --",
    "back\\slash \\' and $$dollar$$ and E'x'",
    "ção 😀 \n\t line",
    "",
]


@pytest.fixture
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(database_url, pool_size=1)
    async with engine.begin() as conn:
        await conn.run_sync(probe.metadata.create_all)
    yield engine
    await engine.dispose()


async def _driver(conn: Any) -> psycopg.AsyncConnection[Any]:
    driver = (await conn.get_raw_connection()).driver_connection
    assert driver is not None
    return driver  # type: ignore[no-any-return]


def _row(label: str, i: int) -> dict[str, Any]:
    return {
        "id": uuid.UUID(int=i + 1),
        "label": label,
        "doc": {"label": label, "nested": [label, {"q": '"quoted"'}], "none": None},
        "at": NOW,
        "blob": label.encode() + b"\x00\xff",
        "n": 2**62 + i,
        "flag": i % 2 == 0,
    }


async def test_values_come_back_exactly_hostile_ones_included(engine: AsyncEngine) -> None:
    rows = [_row(label, i) for i, label in enumerate(HOSTILE)]
    async with engine.connect() as conn:
        driver = await _driver(conn)
        cursor = psycopg.AsyncClientCursor(driver)
        statements = pg_batch.render(cursor, INSERT, rows, conn.dialect)
        assert len(statements) == len(rows)
        await conn.begin()
        await pg_batch.send(driver, statements, commit=True)
        # BEGIN travelled in the same query: psycopg is back out of autocommit, and idle.
        assert driver.autocommit is False
        assert driver.info.transaction_status == TransactionStatus.IDLE
        await conn.commit()
    async with engine.connect() as conn:
        stored = [dict(r._mapping) for r in await conn.execute(sa.select(probe).order_by("n"))]
    assert stored == rows


async def test_a_failed_statement_leaves_nothing_and_the_connection_usable(
    engine: AsyncEngine,
) -> None:
    first, clash = _row("first", 0), _row("clash", 1)
    clash["id"] = first["id"]  # the second insert violates the primary key
    async with engine.connect() as conn:
        driver = await _driver(conn)
        cursor = psycopg.AsyncClientCursor(driver)
        await conn.begin()
        statements = pg_batch.render(cursor, INSERT, [first, clash], conn.dialect)
        with pytest.raises(psycopg.errors.UniqueViolation):
            await pg_batch.send(driver, statements, commit=True)
        assert driver.autocommit is False
        assert driver.info.transaction_status == TransactionStatus.IDLE
        await conn.rollback()
        # The same connection runs the next transaction normally.
        await conn.execute(INSERT, _row("after", 2))
        await conn.commit()
    async with engine.connect() as conn:
        labels = (await conn.execute(sa.select(probe.c.label))).scalars().all()
    assert labels == ["after"]


async def test_a_batch_inside_a_begun_transaction_commits_with_it(engine: AsyncEngine) -> None:
    async with engine.connect() as conn:
        driver = await _driver(conn)
        await conn.begin()
        await conn.execute(sa.select(probe.c.id))  # the transaction has begun on the server
        cursor = psycopg.AsyncClientCursor(driver)
        await pg_batch.send(
            driver, pg_batch.render(cursor, INSERT, _row("x", 0), conn.dialect), commit=False
        )
        assert driver.info.transaction_status == TransactionStatus.INTRANS
        await conn.rollback()
    async with engine.connect() as conn:
        assert (await conn.execute(sa.select(sa.func.count()).select_from(probe))).scalar() == 0


def _uow(engine: AsyncEngine) -> SqlUnitOfWork:
    clock = FixedClock(NOW)
    ids = SequentialIdGen(clock)
    return SqlUnitOfWork(engine, clock, ids, SqlAuditWriter(clock, ids))


async def _outbox_rows(engine: AsyncEngine) -> list[str]:
    async with engine.connect() as conn:
        return list((await conn.execute(sa.select(t.outbox.c.key))).scalars())


async def test_a_flushed_write_is_rolled_back_when_the_unit_of_work_does_not_commit(
    engine: AsyncEngine,
) -> None:
    async with _uow(engine) as uow:
        await uow.outbox.enqueue("step.x", "a", {"n": 1}, available_at=NOW)
        await uow.outbox.enqueue("step.x", "b", {"n": 2}, available_at=NOW)
        await uow.flush()  # sent, not committed
    assert await _outbox_rows(engine) == []
    async with _uow(engine) as uow:
        await uow.outbox.enqueue("step.x", "c", {"n": 3}, available_at=NOW)
        await uow.outbox.enqueue("step.x", "d", {"n": 4}, available_at=NOW)
        await uow.commit()
    assert sorted(await _outbox_rows(engine)) == ["c", "d"]


async def test_relay_marks_many_rows_sent_in_one_statement(engine: AsyncEngine) -> None:
    async with _uow(engine) as uow:
        for key in "abc":
            await uow.outbox.enqueue("step.x", key, {}, available_at=NOW)
        await uow.commit()
    async with _uow(engine) as uow:
        due = await uow.outbox.due(NOW, 10)
        await uow.outbox.mark_sent([m.id for m in due[:2]], NOW)
        await uow.commit()
    async with engine.connect() as conn:
        sent = (
            await conn.execute(
                sa.select(t.outbox.c.key, t.outbox.c.attempts).where(t.outbox.c.sent_at == NOW)
            )
        ).all()
    assert sorted(sent) == [("a", 1), ("b", 1)]


async def test_a_statement_expanded_at_execution_is_sent_the_ordinary_way(
    engine: AsyncEngine,
) -> None:
    expanding = q.MARK_SENT["sqlite"]  # an IN list SQLAlchemy expands per call
    assert not pg_batch.renderable(expanding, {"b_ids": [1], "b_now": NOW}, engine.dialect)
    assert pg_batch.renderable(
        q.MARK_SENT["postgresql"], {"b_ids": [1], "b_now": NOW}, engine.dialect
    )


@pytest.mark.parametrize(
    ("statement", "keys"),
    [
        (q.INSERT_INSTANCE, [c.key for c in t.instances.c]),
        (q.INSERT_HISTORY, [c.key for c in t.history.c]),
        (q.INSERT_STEP_RUN, [c.key for c in t.step_runs.c]),
        (q.INSERT_OUTBOX, ["topic", "key", "payload", "created_at", "available_at"]),
        (q.UPDATE_INSTANCE_CHECKED, ["status", "state", "b_id", "b_expected"]),
        (q.CLAIM_STEP_RUN_CHECKED, ["status", "lease_owner", "b_id", "b_now"]),
        (q.FINISH_STEP_RUN_CHECKED, ["status", "output", "b_id", "b_owner"]),
        (q.CANCEL_OPEN_STEP_RUNS, ["b_instance", "b_now"]),
        (q.CANCEL_OPEN_TASKS, ["b_instance", "b_now"]),
        (q.CANCEL_OPEN_STEP_RUNS_OF, ["b_instances", "b_now"]),
        (q.CANCEL_OPEN_TASKS_OF, ["b_instances", "b_now"]),
        (q.CANCEL_PENDING_TIMERS_OF, ["b_instances"]),
        (q.MARK_SENT["postgresql"], ["b_ids", "b_now"]),
        (LOCK_CHAIN, ["chains"]),
        (CHAINED_INSERT, ["canon_before", "canon_after", "id", "at", "action"]),
    ],
)
def test_every_statement_the_hot_path_holds_travels_in_a_batch(
    statement: Any, keys: list[str], engine: AsyncEngine
) -> None:
    """A held statement that cannot be rendered sends its whole flush the slow way (one send
    per statement): an IN list or a per-row default slipping into one must fail here."""
    assert pg_batch.renderable(statement, dict.fromkeys(keys), engine.dialect)


async def test_the_cancels_of_a_batch_of_ending_cases_are_held_as_one_statement_per_table(
    engine: AsyncEngine,
) -> None:
    """A tick's batch ends many cases: their open work is cancelled by one statement per table,
    unless another write was held in between (then the later cases get statements of their
    own, sent after it)."""
    async with _uow(engine) as uow:
        for instance_id in ("a", "b"):
            await uow._db.write(q.INSERT_HISTORY, {"instance_id": instance_id})
            await uow.instances.cancel_open_work(instance_id, NOW)
            await uow.timers.cancel(instance_id, None, None, None, None)
        await uow.outbox.enqueue("step.x", "k", {}, available_at=NOW)
        await uow.timers.cancel("c", "token", None, None, None)  # a filtered cancel: its own
        await uow.instances.cancel_open_work("c", NOW)
        held = [
            (h.statement, h.parameters) for h in uow._db.held if h.statement is not q.INSERT_HISTORY
        ]
        uow._db.held = []
    assert held[:3] == [
        (q.CANCEL_OPEN_STEP_RUNS_OF, {"b_now": NOW, "b_instances": ["a", "b"]}),
        (q.CANCEL_OPEN_TASKS_OF, {"b_now": NOW, "b_instances": ["a", "b"]}),
        (q.CANCEL_PENDING_TIMERS_OF, {"b_instances": ["a", "b"]}),
    ]
    assert held[3][0] is q.INSERT_OUTBOX
    assert [h[0] for h in held[5:]] == [q.CANCEL_OPEN_STEP_RUNS_OF, q.CANCEL_OPEN_TASKS_OF]
    assert held[-1][1] == {"b_now": NOW, "b_instances": ["c"]}


async def test_begin_with_the_protocol_number_commits_and_rolls_back_as_one_transaction(
    engine: AsyncEngine,
) -> None:
    """The first statement of a start (the protocol number) carries the transaction's BEGIN;
    psycopg is in autocommit meanwhile and leaves it when the unit of work ends."""
    with pytest.raises(RuntimeError):
        async with _uow(engine) as uow:
            assert await uow.instances.next_protocol_number("TST", 2026, tenant="default") == 1
            await uow.outbox.enqueue("step.x", "lost", {}, available_at=NOW)
            raise RuntimeError("the caller fails after taking the number")
    async with _uow(engine) as uow:
        # the first was rolled back
        assert await uow.instances.next_protocol_number("TST", 2026, tenant="default") == 1
        await uow.outbox.enqueue("step.x", "kept", {}, available_at=NOW)
        await uow.commit()
    async with _uow(engine) as uow:
        assert await uow.instances.next_protocol_number("TST", 2026, tenant="default") == 2
        await uow.commit()
    assert await _outbox_rows(engine) == ["kept"]
    async with engine.connect() as conn:  # pool_size=1: the connection those used
        driver = await _driver(conn)
        assert driver.autocommit is False
        assert driver.info.transaction_status == TransactionStatus.IDLE


async def test_due_rows_read_first_include_rows_this_unit_of_work_holds(
    engine: AsyncEngine,
) -> None:
    """Held rows of the table a first statement reads are sent before it, BEGIN or not."""
    async with _uow(engine) as uow:
        await uow.outbox.enqueue("step.x", "held", {}, available_at=NOW)
        assert [m.key for m in await uow.outbox.due(NOW, 10)] == ["held"]
        await uow.commit()
    assert await _outbox_rows(engine) == ["held"]


async def test_a_read_cancelled_mid_query_never_leaves_an_autocommit_connection_in_the_pool(
    engine: AsyncEngine,
) -> None:
    """A first read runs with psycopg in autocommit; a job cancelled right then (a timeout)
    must not hand that connection back still in autocommit, where the next unit of work's
    statements would each commit on their own."""

    async def slow_first_read() -> None:
        async with _uow(engine) as uow:
            # ``read`` is what get_instance and the claim's read use; pg_sleep makes it slow.
            await uow._db.read(sa.select(sa.func.pg_sleep(5)), {})

    task = asyncio.create_task(slow_first_read())
    await asyncio.sleep(0.5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(2):  # pool_size=1 (+1 overflow): whichever connection comes next
        async with engine.connect() as conn:
            assert (await _driver(conn)).autocommit is False
    with pytest.raises(RuntimeError):
        async with _uow(engine) as uow:
            await uow.outbox.enqueue("step.x", "a", {}, available_at=NOW)
            await uow.outbox.enqueue("step.x", "b", {}, available_at=NOW)
            await uow.flush()
            raise RuntimeError("rolled back, not committed statement by statement")
    assert await _outbox_rows(engine) == []


async def test_a_connection_left_in_autocommit_is_switched_back_when_the_unit_of_work_ends(
    engine: AsyncEngine,
) -> None:
    async with _uow(engine) as uow:
        driver = await uow._db.driver()
        await driver.set_autocommit(True)  # as a switch-back that failed would leave it
    async with engine.connect() as conn:
        assert (await _driver(conn)).autocommit is False
