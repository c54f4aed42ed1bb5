"""The SQL unit of work: one connection, one transaction, every repository the engine needs.

``async with uow:`` begins (``BEGIN IMMEDIATE`` on SQLite: the write lock up front) and ends
the transaction without effect unless ``commit()`` was called (``core.db.end_uncommitted``).
State, history, tasks, timers, audit and outbox rows all go through the same connection, so
they commit together or not at all.

Held-back writes (PostgreSQL). The rows a transition adds and never reads back in the same
transaction (the instance row of a start, history, step runs, outbox, audit) are not sent one
by one: the unit of work keeps them and sends them together as one query string
(``pg_batch``: one ``send()``, one round trip), either just before the next statement that goes
through ``uow.conn`` (so every read, and every write that could depend on them, sees them) or,
usually, together with the NOTIFY and the COMMIT. Updates whose result the caller would check
(a step's lease, the instance's version, a claim) are held too, in forms that fail on the
server instead (``workflow_expect``, migration workflow_0002). The transaction's BEGIN is not a
round trip of its own either: a first plain read runs before it (``_read``: the same rows under
READ COMMITTED), and BEGIN travels with the first write (``pg_batch.send``, ``_begin_with``).
So a finishing step is one round trip where it was six, a claim two where it was four, and a
start three (latest version, protocol number, the rest) where it was twelve.
An error in a held-back write surfaces at that flush and aborts the transaction as before;
a history number already taken is still reported as ``ConcurrentModification``. SQLite sends
every statement at once (it has no network to save).
"""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import msgspec
import sqlalchemy as sa
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from contracts.errors import ConcurrentModification, Conflict
from contracts.idempotency import ANSWER_SLOT, Reservation, StoredAnswer
from contracts.kernel import Actor, AuditEntry, AuditWriter, Clock, IdGen
from core.audit import CHAINED_INSERT, LOCK_CHAIN, SqlAuditWriter
from core.db import end_uncommitted, mark_written
from core.dbtypes import UTCDateTime
from core.idempotency_store import RELEASE, STORE_ANSWER, answer_parameters
from services.workflow.persistence import pg_batch
from services.workflow.persistence import statements as q
from services.workflow.persistence import tables as t
from services.workflow.runtime.kernel.naming import OUTBOX_CHANNEL
from services.workflow.runtime.ports import (
    ClaimLost,
    HistoryRecord,
    InstanceRecord,
    LeaseLost,
    OutboxMessage,
    StepRunRecord,
    TaskRecord,
    TimerRecord,
    VersionRecord,
)

if TYPE_CHECKING:  # psycopg is imported where it is used (PostgreSQL): SQLite never loads it
    import psycopg


def _failed_check(exc: Exception, held: list[_Held]) -> Exception | None:
    """What a failed ``workflow_expect`` in a held-back update means, if that is what failed."""
    diag = getattr(getattr(exc, "orig", exc), "diag", None)
    if diag is None or diag.sqlstate != "40001":
        return None
    if diag.message_primary == q.LEASE_LOST:
        return LeaseLost()
    if diag.message_primary == q.CLAIM_LOST:
        return ClaimLost()
    if diag.message_primary == q.IDEMPOTENCY_LOST:
        return _taken_over()
    if diag.message_primary == q.INSTANCE_CHANGED:
        instance_id = next(
            (h.history_of for h in held if h.statement is q.UPDATE_INSTANCE_CHECKED), None
        )
        return ConcurrentModification(
            "the instance changed since it was read", instance_id=instance_id
        )
    return None


def _taken_over() -> Conflict:
    return Conflict(
        "another attempt of this request took its Idempotency-Key over",
        code="idempotency_key_taken_over",
    )


def _history_conflict(exc: IntegrityError, instance_id: str | None) -> Exception:
    """A taken history number means another event was applied to that version first (history
    numbers come from the state version); any other integrity error stays what it is.
    ``instance_id``: whose history rows were among the statements that failed."""
    table = getattr(getattr(exc.orig, "diag", None), "table_name", None)
    if instance_id is not None and table in (t.history.name, None):
        return ConcurrentModification(
            "the instance changed since it was read", instance_id=instance_id
        )
    return exc


def _write_error(exc: Exception, held: list[_Held], history_of: str | None) -> Exception:
    """What a failed held-back write means to the caller, however it was sent."""
    if isinstance(exc, IntegrityError):
        return _history_conflict(exc, history_of)
    return _failed_check(exc, held) or exc


def _claim_values(
    owner: str,
    now: datetime,
    lease_until: datetime,
    input: dict[str, Any] | None,
    checkpoint: dict[str, Any] | None,
) -> dict[str, Any]:
    """What a claim writes on the step run it takes."""
    return {
        "status": "running",
        "lease_owner": owner,
        "lease_expires_at": lease_until,
        "started_at": now,
        "input": input,
        "checkpoint": checkpoint,
    }


def _struct(cls: type[Any], row: Any) -> Any:
    return msgspec.convert({str(k): v for k, v in row._mapping.items()}, cls)


def _version(row: Any) -> VersionRecord:
    values = {str(k): v for k, v in row._mapping.items()}
    values["schema"] = msgspec.json.decode(values["schema"])
    return msgspec.convert(values, VersionRecord)


_NOTIFY = sa.text(f"NOTIFY {OUTBOX_CHANNEL}")
_NOTIFY_SQL = f"NOTIFY {OUTBOX_CHANNEL}".encode()


class _Held(NamedTuple):
    """A write the unit of work has not sent yet (``history_of``: the instance whose history
    rows these are, or whose version this update checks, to report a taken number or a moved
    version as a concurrent change)."""

    statement: Any
    parameters: Any
    history_of: str | None = None


def _send_order(held: _Held) -> int:
    """Where a held write goes in its flush: the instance's row first (see ``flush``), the
    audit chain's lock and rows last, so that lock is held only from there to the COMMIT and
    its holder never waits for a row lock (every other transaction waiting for it may hold
    some)."""
    if held.statement is LOCK_CHAIN or held.statement is CHAINED_INSERT:
        return 2
    return 0 if getattr(held.statement, "table", None) is t.instances else 1


class _FlushingConnection:
    """What ``uow.conn`` hands out on PostgreSQL: the transaction's connection, which sends the
    held-back writes before any statement of its own."""

    def __init__(self, uow: SqlUnitOfWork, conn: AsyncConnection) -> None:
        self._uow = uow
        self._conn = conn

    async def execute(self, statement: Any, parameters: Any = None, **kw: Any) -> Any:
        await self._uow.flush()
        return await self._conn.execute(statement, parameters, **kw)

    def begin_nested(self) -> Any:
        if self._uow.holding:
            raise RuntimeError("flush() the held-back writes before a savepoint")
        return self._conn.begin_nested()

    def __getattr__(self, name: str) -> Any:
        if name in ("commit", "rollback", "exec_driver_sql", "stream", "scalar", "scalars"):
            raise AttributeError(f"uow.conn.{name} is not available: use the unit of work")
        return getattr(self._conn, name)


class _HeldTransaction:
    """A unit of work's transaction, handed to the request's answer slot at ``commit()``
    (``contracts.idempotency.HeldCommit``)."""

    def __init__(self, uow: SqlUnitOfWork) -> None:
        self._uow = uow

    async def commit(self, reservation: Reservation | None, answer: StoredAnswer | None) -> None:
        await self._uow._commit_handed(reservation, answer)

    async def rollback(self) -> None:
        self._uow._committed = False
        await self._uow._end(failed=True)


class SqlUnitOfWork:
    def __init__(self, engine: AsyncEngine, clock: Clock, ids: IdGen, audit: AuditWriter) -> None:
        self._engine = engine
        self._clock = clock
        self._ids = ids
        self._audit = audit
        self._conn: AsyncConnection | None = None
        self._facade: AsyncConnection | None = None
        self._committed = False
        self._notify = False
        self._held: list[_Held] = []
        self._hold = engine.dialect.name == "postgresql"
        self._chain_locked = False
        self._handed = False

    @property
    def conn(self) -> AsyncConnection:
        if self._facade is None:
            raise RuntimeError("unit of work used outside 'async with'")
        return self._facade

    @property
    def is_postgres(self) -> bool:
        return self._engine.dialect.name == "postgresql"

    @property
    def holding(self) -> bool:
        return bool(self._held)

    async def __aenter__(self) -> SqlUnitOfWork:
        if self._handed:
            raise RuntimeError("this unit of work's transaction waits for its request's answer")
        slot = ANSWER_SLOT.get()
        if slot is not None:  # an earlier transaction of this request must be visible first
            await slot.settle()
        self._conn = await self._engine.connect()
        await self._conn.begin()
        self._facade = (
            cast(AsyncConnection, _FlushingConnection(self, self._conn))
            if self._hold
            else self._conn
        )
        self._committed = False
        self._notify = False
        self._chain_locked = False
        self._held = []
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._handed:
            return  # the request's answer slot ends the transaction (_HeldTransaction)
        await self._end(failed=exc[0] is not None)

    async def _end(self, failed: bool = False) -> None:
        conn, self._conn, self._facade = self._raw, None, None
        self._handed = False
        self._held = []  # never sent: nothing to undo
        try:
            if not self._committed:
                await end_uncommitted(conn, failed=failed)
        finally:
            try:
                if self._hold:
                    await self._leave_autocommit(conn)
            finally:
                await conn.close()

    @staticmethod
    async def _leave_autocommit(conn: AsyncConnection) -> None:
        """Never hand a connection back to the pool in autocommit (``_begin_with`` leaves it
        so until here; ``_read`` and ``pg_batch.send`` may fail to switch back, if cancelled
        mid-query): switch it back, or have the pool discard it."""
        import psycopg

        try:
            raw = await conn.get_raw_connection()
            driver = cast("psycopg.AsyncConnection[Any]", raw.driver_connection)
            if not driver.autocommit:
                return
            if driver.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                await driver.rollback()
            await driver.set_autocommit(False)
        except Exception:  # noqa: BLE001 - whatever went wrong, this connection is not reused
            await conn.invalidate()

    async def _begin_with(
        self, statement: Any, parameters: dict[str, Any], *tables: sa.Table
    ) -> list[Any] | None:
        """PostgreSQL: a first statement whose result is needed, with the transaction's BEGIN
        in the same query (psycopg would send BEGIN alone first, a round trip of its own).
        Returns its rows as psycopg gives them (named tuples, values as psycopg loads them), or
        None when the transaction has already begun, or when held writes touch ``tables`` (what
        the statement reads or changes): the caller then runs it the ordinary way, which sends
        them first. psycopg stays in autocommit until the unit of work ends, so it adds no
        BEGIN of its own; COMMIT and ROLLBACK work as usual."""
        if any(getattr(h.statement, "table", None) in tables for h in self._held):
            return None
        import psycopg
        from psycopg.rows import namedtuple_row

        driver = await self._driver()
        if driver.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            return None
        cursor = psycopg.AsyncClientCursor(driver, row_factory=namedtuple_row)
        (sql,) = pg_batch.render(cursor, statement, parameters, self._engine.dialect)
        await driver.set_autocommit(True)
        mark_written(self._raw)
        try:
            await cursor.execute(b"BEGIN;\n" + sql, prepare=False)
        except psycopg.Error as exc:
            raise pg_batch.as_dbapi_error(exc) from exc
        cursor.nextset()
        return await cursor.fetchall()

    @property
    def _raw(self) -> AsyncConnection:
        if self._conn is None:
            raise RuntimeError("unit of work used outside 'async with'")
        return self._conn

    async def _driver(self) -> psycopg.AsyncConnection[Any]:
        driver = (await self._raw.get_raw_connection()).driver_connection
        assert driver is not None
        return cast("psycopg.AsyncConnection[Any]", driver)

    async def _read(self, statement: Any, parameters: Any) -> Any:
        """A plain read (no lock). On PostgreSQL, as the first statement of the unit of work, it
        runs before the transaction begins on the server: under READ COMMITTED a lone SELECT
        sees the same rows either way, and the transaction's BEGIN then travels with its first
        write (see ``pg_batch``) instead of costing a round trip of its own."""
        if self._hold and not self._held:
            import psycopg

            driver = await self._driver()
            if driver.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
                await driver.set_autocommit(True)
                try:
                    return await self._raw.execute(statement, parameters)
                finally:
                    with contextlib.suppress(psycopg.Error):  # else __aexit__ discards it
                        await driver.set_autocommit(False)
        return await self.conn.execute(statement, parameters)

    def _via(self, *tables: sa.Table) -> AsyncConnection:
        """The connection for a statement that reads or changes only ``tables``: it need not
        wait for held-back writes to other tables (those neither read nor change its rows),
        which then still travel with the COMMIT."""
        if any(getattr(h.statement, "table", None) in tables for h in self._held):
            return self.conn
        return self._raw

    async def _write(self, statement: Any, parameters: Any, history_of: str | None = None) -> None:
        """Send a write whose result nobody needs in this transaction, or hold it back
        (PostgreSQL)."""
        if self._hold:
            self._held.append(_Held(statement, parameters, history_of))
        else:
            await self._send(self._raw, _Held(statement, parameters, history_of))

    async def flush(self, *, commit: bool = False) -> None:
        """Send the held-back writes (and, with ``commit``, the NOTIFY and the COMMIT) in one
        round trip."""
        # The instance's row first: every transaction that changes an instance and its step
        # runs or timers then locks them in the same order (the tick locks the instance before
        # its timers and step runs), so a finishing step and a firing timer cannot deadlock.
        # The sort is stable: everything else keeps the order it was written in.
        held = sorted(self._held, key=_send_order)
        self._held = []
        conn = self._raw
        if not commit and len(held) < 2:
            for item in held:  # one statement: a batch would save nothing
                await self._send(conn, item)
            return
        driver = await self._driver()
        history_of = next(
            (h.history_of for h in held if h.statement is q.INSERT_HISTORY and h.history_of), None
        )
        dialect = self._engine.dialect
        if all(pg_batch.renderable(h.statement, h.parameters, dialect) for h in held):
            await self._send_batch(conn, driver, held, commit=commit, history_of=history_of)
            return
        # A statement SQLAlchemy completes at execution (an IN list): a psycopg pipeline, one
        # round trip still, but one send() per statement.
        import psycopg

        try:
            async with driver.pipeline():
                for item in held:
                    await conn.execute(item.statement, item.parameters)
                if commit:
                    if self._notify:
                        # Delivered only if the transaction commits: relays wake at once.
                        await conn.execute(_NOTIFY)
                    await conn.commit()
        except (DBAPIError, psycopg.Error) as exc:
            raise _write_error(exc, held, history_of) from exc

    async def _send_batch(
        self,
        conn: AsyncConnection,
        driver: psycopg.AsyncConnection[Any],
        held: list[_Held],
        *,
        commit: bool,
        history_of: str | None,
    ) -> None:
        """The held writes (and NOTIFY, COMMIT) as one query string: see ``pg_batch``."""
        import psycopg

        cursor = psycopg.AsyncClientCursor(driver)
        dialect = self._engine.dialect
        statements = [
            sql for h in held for sql in pg_batch.render(cursor, h.statement, h.parameters, dialect)
        ]
        if commit and self._notify:
            statements.append(_NOTIFY_SQL)
        mark_written(conn)
        try:
            await pg_batch.send(driver, statements, commit=commit)
        except psycopg.Error as exc:
            raise _write_error(pg_batch.as_dbapi_error(exc), held, history_of) from exc
        if commit:
            await conn.commit()  # ends SQLAlchemy's transaction; the server's has ended

    async def _send(self, conn: AsyncConnection, item: _Held) -> None:
        try:
            await conn.execute(item.statement, item.parameters)
        except DBAPIError as exc:
            raise _write_error(exc, [item], item.history_of) from exc

    async def commit(self) -> None:
        """Commit, or, inside a request that carries an ``Idempotency-Key``, hand the open
        transaction to the request's answer slot, which commits it with the answer."""
        slot = ANSWER_SLOT.get()
        if slot is not None and slot.hold(_HeldTransaction(self)):
            self._committed = self._handed = True
            return
        await self._commit_now()
        self._committed = True

    async def _commit_now(self) -> None:
        if self._held or (self._notify and self._hold):
            await self.flush(commit=True)
        else:
            await self._raw.commit()

    async def _commit_handed(
        self, reservation: Reservation | None, answer: StoredAnswer | None
    ) -> None:
        """The held transaction's COMMIT, with the request's answer (or its release) when
        ``reservation`` is given; on PostgreSQL that statement goes out with the COMMIT."""
        self._committed = False
        try:
            if reservation is not None:
                parameters = answer_parameters(reservation, answer)
                if self._hold:
                    checked = q.RELEASE_ANSWER_CHECKED if answer is None else q.STORE_ANSWER_CHECKED
                    self._held.append(_Held(checked, parameters))
                else:
                    statement = RELEASE if answer is None else STORE_ANSWER
                    if (await self._raw.execute(statement, parameters)).rowcount != 1:
                        raise _taken_over()
            await self._commit_now()
            self._committed = True
        finally:
            await self._end(failed=not self._committed)

    # --- definitions and versions -------------------------------------------------------------

    def _version_query(self) -> sa.Select[Any]:
        return sa.select(
            t.versions.c.id,
            t.versions.c.definition_id,
            t.definitions.c.key,
            t.versions.c.version,
            t.versions.c.status,
            t.versions.c.checksum,
            t.versions.c.schema,
            t.versions.c.published_at,
        ).join(t.definitions, t.definitions.c.id == t.versions.c.definition_id)

    async def find_version_by_checksum(self, key: str, checksum: str) -> VersionRecord | None:
        row = (
            await self.conn.execute(
                self._version_query().where(
                    t.definitions.c.key == key, t.versions.c.checksum == checksum
                )
            )
        ).first()
        return None if row is None else _version(row)

    async def add_version(
        self, *, key: str, name: str, checksum: str, schema: bytes, actor: Actor
    ) -> VersionRecord:
        """Store a new published version; ``schema`` is the canonical JSON, kept verbatim."""
        now = self._clock.now()
        definition = (
            await self.conn.execute(
                sa.select(t.definitions.c.id).where(t.definitions.c.key == key).with_for_update()
            )
        ).first()
        if definition is None:
            definition_id = str(self._ids.new_id())
            await self.conn.execute(
                t.definitions.insert().values(id=definition_id, key=key, name=name, created_at=now)
            )
        else:
            definition_id = definition.id
        last = (
            await self.conn.execute(
                sa.select(sa.func.max(t.versions.c.version)).where(
                    t.versions.c.definition_id == definition_id
                )
            )
        ).scalar()
        version_id = str(self._ids.new_id())
        insert = t.versions.insert().values(
            id=version_id,
            definition_id=definition_id,
            version=(last or 0) + 1,
            status="published",
            checksum=checksum,
            schema=schema.decode(),
            created_at=now,
            published_at=now,
            published_by=actor.id,
        )
        try:
            async with self.conn.begin_nested():
                await self.conn.execute(insert)
        except IntegrityError as exc:
            raise ConcurrentModification(
                "another process published this definition at the same time", key=key
            ) from exc
        found = await self.get_version(version_id)
        assert found is not None
        return found

    async def latest_version(self, key: str) -> VersionRecord | None:
        row = (
            await self.conn.execute(
                self._version_query()
                .where(t.definitions.c.key == key, t.versions.c.status == "published")
                .order_by(t.versions.c.version.desc())
                .limit(1)
            )
        ).first()
        return None if row is None else _version(row)

    async def latest_version_id(self, key: str) -> str | None:
        value = (await self._read(q.LATEST_VERSION_ID, {"b_key": key})).scalar()
        return None if value is None else str(value)

    async def get_version(self, version_id: str) -> VersionRecord | None:
        row = (
            await self.conn.execute(self._version_query().where(t.versions.c.id == version_id))
        ).first()
        return None if row is None else _version(row)

    async def version_number(self, key: str, number: int) -> VersionRecord | None:
        row = (
            await self.conn.execute(
                self._version_query().where(
                    t.definitions.c.key == key, t.versions.c.version == number
                )
            )
        ).first()
        return None if row is None else _version(row)

    async def list_versions(self, key: str | None = None) -> list[VersionRecord]:
        query = self._version_query().order_by(t.definitions.c.key, t.versions.c.version)
        if key is not None:
            query = query.where(t.definitions.c.key == key)
        return [_version(r) for r in await self.conn.execute(query)]

    # --- instances ----------------------------------------------------------------------------

    async def next_protocol_number(self, prefix: str, year: int) -> int:
        """Allocate the next number of a protocol series inside this transaction (no gaps).

        One atomic upsert: concurrent first starts of a series cannot both insert, and the row
        stays locked until commit, so numbers follow commit order.
        """
        statement = q.NEXT_PROTOCOL_NUMBER[self._engine.dialect.name]
        parameters = {"b_prefix": prefix, "b_year": year}
        if self._hold:
            rows = await self._begin_with(statement, parameters, t.protocol_counters)
            if rows is not None:
                return int(rows[0][0])
        found = await self._via(t.protocol_counters).execute(statement, parameters)
        return int(found.scalar_one())

    async def add_instance(self, record: InstanceRecord) -> None:
        await self._write(q.INSERT_INSTANCE, msgspec.structs.asdict(record))

    async def lock_instance(self, instance_id: str) -> InstanceRecord | None:
        # Held writes to other tables (a finished step's close) wait: the instance row is
        # locked first (see ``flush``).
        row = (await self._via(t.instances).execute(q.LOCK_INSTANCE, {"b_id": instance_id})).first()
        return None if row is None else _struct(InstanceRecord, row)

    async def get_instance(self, instance_id: str) -> InstanceRecord | None:
        row = (await self._read(q.GET_INSTANCE, {"b_id": instance_id})).first()
        return None if row is None else _struct(InstanceRecord, row)

    async def find_instance_by_protocol(self, protocol: str) -> InstanceRecord | None:
        row = (
            await self.conn.execute(
                sa.select(t.instances).where(t.instances.c.protocol == protocol)
            )
        ).first()
        return None if row is None else _struct(InstanceRecord, row)

    async def update_instance(self, record: InstanceRecord, *, expected_version: int) -> None:
        values = msgspec.structs.asdict(record)
        values.pop("id")
        params = {**values, "b_id": record.id, "b_expected": expected_version}
        if self._hold and not any(h.statement is q.INSERT_INSTANCE for h in self._held):
            # Checked on the server when it is sent (with the COMMIT, usually).
            self._held.append(_Held(q.UPDATE_INSTANCE_CHECKED, params, record.id))
            return
        result = await self.conn.execute(q.UPDATE_INSTANCE, params)
        if result.rowcount != 1:
            raise ConcurrentModification(
                "the instance changed since it was read",
                instance_id=record.id,
                expected_version=expected_version,
            )

    # --- history ------------------------------------------------------------------------------

    async def append_history(self, instance_id: str, seq: int, record: HistoryRecord) -> None:
        await self.conn.execute(
            t.history.insert().values(
                id=str(self._ids.new_id()),
                instance_id=instance_id,
                seq=seq,
                at=record.at,
                event=record.event,
                from_node=record.from_node,
                to_node=record.to_node,
                actor_kind=record.actor.kind if record.actor else None,
                actor_id=record.actor.id if record.actor else None,
                data=record.data,
            )
        )

    async def append_history_rows(self, instance_id: str, records: list[HistoryRecord]) -> None:
        """All history rows of one applied event, in one statement; ``ConcurrentModification``
        when one of their numbers is taken (another event was applied to that version)."""
        if not records:
            return
        # executemany of one prebuilt statement: compiled once and cached (a multi-row VALUES
        # statement would be compiled anew for every call). History numbers come from the state
        # version, so a taken number means another event was applied to that version first.
        await self._write(
            q.INSERT_HISTORY,
            [
                {
                    "id": str(self._ids.new_id()),
                    "instance_id": instance_id,
                    "seq": r.seq,
                    "at": r.at,
                    "event": r.event,
                    "from_node": r.from_node,
                    "to_node": r.to_node,
                    "actor_kind": r.actor.kind if r.actor else None,
                    "actor_id": r.actor.id if r.actor else None,
                    "data": r.data,
                }
                for r in records
            ],
            history_of=instance_id,
        )

    async def history(self, instance_id: str) -> list[HistoryRecord]:
        rows = await self.conn.execute(
            sa.select(t.history)
            .where(t.history.c.instance_id == instance_id)
            .order_by(t.history.c.seq)
        )
        return [
            HistoryRecord(
                seq=r.seq,
                at=r.at,
                event=r.event,
                from_node=r.from_node,
                to_node=r.to_node,
                actor=Actor(kind=r.actor_kind, id=r.actor_id) if r.actor_id else None,
                data=r.data,
            )
            for r in rows
        ]

    async def last_history_seq(self, instance_id: str) -> int:
        value = (
            await self.conn.execute(
                sa.select(sa.func.max(t.history.c.seq)).where(
                    t.history.c.instance_id == instance_id
                )
            )
        ).scalar()
        return int(value or 0)

    # --- step runs ----------------------------------------------------------------------------

    async def add_step_run(self, record: StepRunRecord) -> None:
        await self._write(q.INSERT_STEP_RUN, msgspec.structs.asdict(record))

    async def get_step_run(self, step_run_id: str) -> StepRunRecord | None:
        row = (await self.conn.execute(q.GET_STEP_RUN, {"b_id": step_run_id})).first()
        return None if row is None else _struct(StepRunRecord, row)

    async def get_step_run_and_instance(
        self, step_run_id: str
    ) -> tuple[StepRunRecord, InstanceRecord] | None:
        row = (await self._read(q.GET_STEP_RUN_AND_INSTANCE, {"b_id": step_run_id})).first()
        if row is None:
            return None
        values = row._mapping
        step = msgspec.convert({str(c.name): values[c] for c in t.step_runs.c}, StepRunRecord)
        instance = msgspec.convert({str(c.name): values[c] for c in t.instances.c}, InstanceRecord)
        return step, instance

    async def update_step_run(self, step_run_id: str, **values: Any) -> None:
        await self.conn.execute(q.UPDATE_STEP_RUN, {**values, "b_id": step_run_id})

    async def claim_step_run(
        self,
        step_run_id: str,
        *,
        owner: str,
        now: datetime,
        lease_until: datetime,
        input: dict[str, Any] | None = None,
        checkpoint: dict[str, Any] | None = None,
    ) -> StepRunRecord | None:
        """Take the lease of a scheduled step. A running step is never taken over here: when its
        lease expires the sweeper closes that attempt and schedules the next one."""
        values = _claim_values(owner, now, lease_until, input, checkpoint)
        result = await self.conn.execute(
            q.CLAIM_STEP_RUN, {**values, "b_id": step_run_id, "b_now": now}
        )
        row = result.first()
        return None if row is None else _struct(StepRunRecord, row)

    async def take_step_run(
        self,
        step: StepRunRecord,
        *,
        owner: str,
        now: datetime,
        lease_until: datetime,
        input: dict[str, Any] | None = None,
        checkpoint: dict[str, Any] | None = None,
    ) -> StepRunRecord | None:
        """On PostgreSQL the claim is held back, checked on the server (``ClaimLost`` when it is
        sent, with the COMMIT usually), and the claimed record is ``step`` with the values the
        claim writes; elsewhere it is ``claim_step_run``."""
        if not self._hold:
            return await self.claim_step_run(
                step.id,
                owner=owner,
                now=now,
                lease_until=lease_until,
                input=input,
                checkpoint=checkpoint,
            )
        if step.status != "scheduled":
            return None  # what the claim would find: a running step is never taken over
        values = _claim_values(owner, now, lease_until, input, checkpoint)
        self._held.append(
            _Held(q.CLAIM_STEP_RUN_CHECKED, {**values, "b_id": step.id, "b_now": now})
        )
        return msgspec.structs.replace(step, **values)

    async def finish_step_run(self, step_run_id: str, *, owner: str, **values: Any) -> bool:
        """Close a running step if ``owner`` still holds its lease; false when it lost it (the
        sweeper took the attempt away): its result is then discarded. On PostgreSQL the update
        is held back and checked on the server: a lost lease raises ``LeaseLost`` when it is
        sent (with the COMMIT, usually)."""
        params = {**values, "b_id": step_run_id, "b_owner": owner}
        if self._hold:
            self._held.append(_Held(q.FINISH_STEP_RUN_CHECKED, params))
            return True
        result = await self.conn.execute(q.FINISH_STEP_RUN, params)
        return bool(result.rowcount == 1)

    async def last_attempt(
        self, instance_id: str, node_id: str, kind: str, attempt_group: int
    ) -> int:
        params = {
            "b_instance": instance_id,
            "b_node": node_id,
            "b_kind": kind,
            "b_group": attempt_group,
        }
        value = (await self.conn.execute(q.LAST_ATTEMPT, params)).scalar()
        return int(value or 0)

    async def budget_start(
        self, instance_id: str, node_id: str, kind: str, attempt_group: int
    ) -> int:
        c, d = t.step_runs.c, t.dead_letters.c
        lettered = sa.select(d.step_run_id).where(d.instance_id == instance_id)
        query = sa.select(sa.func.max(c.attempt)).where(
            c.instance_id == instance_id,
            c.node_id == node_id,
            c.kind == kind,
            c.attempt_group == attempt_group,
            sa.or_(c.status == "rejected", c.id.in_(lettered)),
        )
        value = (await self.conn.execute(query)).scalar()
        return int(value or 0)

    async def last_checkpoint(
        self, instance_id: str, node_id: str, kind: str, attempt_group: int
    ) -> dict[str, Any] | None:
        c = t.step_runs.c
        row = (
            await self.conn.execute(
                sa.select(c.checkpoint)
                .where(
                    c.instance_id == instance_id,
                    c.node_id == node_id,
                    c.kind == kind,
                    c.attempt_group == attempt_group,
                    c.checkpoint.is_not(None),
                )
                .order_by(c.attempt.desc())
                .limit(1)
            )
        ).first()
        return None if row is None else dict(row.checkpoint)

    async def step_runs(self, instance_id: str) -> list[StepRunRecord]:
        rows = await self.conn.execute(
            sa.select(t.step_runs)
            .where(t.step_runs.c.instance_id == instance_id)
            .order_by(t.step_runs.c.created_at, t.step_runs.c.id)
        )
        return [_struct(StepRunRecord, r) for r in rows]

    async def cancel_open_work(self, instance_id: str, now: datetime) -> None:
        # Held back on PostgreSQL like the inserts: sent in order with them, so a step run
        # scheduled by the same decision is cancelled too.
        params = {"b_instance": instance_id, "b_now": now}
        for statement in (q.CANCEL_OPEN_STEP_RUNS, q.CANCEL_OPEN_TASKS):
            await self._write(statement, params)

    async def cancel_open_step_runs(self, instance_id: str, token_id: str | None) -> None:
        where = [
            t.step_runs.c.instance_id == instance_id,
            t.step_runs.c.status.in_(q.OPEN_STEP_STATUSES),
        ]
        if token_id is not None:
            where.append(t.step_runs.c.token_id == token_id)
        await self.conn.execute(
            t.step_runs.update()
            .where(*where)
            .values(status="cancelled", finished_at=self._clock.now())
        )

    # --- tasks --------------------------------------------------------------------------------

    async def add_task(self, record: TaskRecord) -> None:
        await self.conn.execute(q.INSERT_TASK, msgspec.structs.asdict(record))

    async def lock_task(self, task_id: str) -> TaskRecord | None:
        row = (
            await self.conn.execute(
                sa.select(t.tasks).where(t.tasks.c.id == task_id).with_for_update()
            )
        ).first()
        return None if row is None else _struct(TaskRecord, row)

    async def update_task(self, task_id: str, **values: Any) -> None:
        await self.conn.execute(t.tasks.update().where(t.tasks.c.id == task_id).values(**values))

    async def tasks(self, instance_id: str) -> list[TaskRecord]:
        rows = await self.conn.execute(
            sa.select(t.tasks)
            .where(t.tasks.c.instance_id == instance_id)
            .order_by(t.tasks.c.created_at, t.tasks.c.id)
        )
        return [_struct(TaskRecord, r) for r in rows]

    async def close_tasks(
        self,
        instance_id: str,
        token_id: str,
        node_id: str,
        attempt_group: int,
        *,
        reason: str,
        now: datetime,
    ) -> None:
        """Close a token's open tasks at a node. The task a person completed is marked by the
        engine itself; whatever is still open here is cancelled with ``reason``."""
        c = t.tasks.c
        await self.conn.execute(
            t.tasks.update()
            .where(
                c.instance_id == instance_id,
                c.token_id == token_id,
                c.node_id == node_id,
                c.attempt_group == attempt_group,
                c.status.in_(q.OPEN_TASK_STATUSES),
            )
            .values(status="cancelled", completed_at=now, outcome=f"closed:{reason}")
        )

    async def escalate_tasks(
        self, instance_id: str, token_id: str, node_id: str, attempt_group: int, queue: str
    ) -> None:
        c = t.tasks.c
        await self.conn.execute(
            t.tasks.update()
            .where(
                c.instance_id == instance_id,
                c.token_id == token_id,
                c.node_id == node_id,
                c.attempt_group == attempt_group,
                c.status.in_(q.OPEN_TASK_STATUSES),
            )
            .values(queue=queue, assignee=None, status="ready", claimed_at=None)
        )

    async def cancel_open_tasks(
        self, instance_id: str, token_id: str | None, now: datetime
    ) -> list[str]:
        query = q.OPEN_TASK_IDS
        if token_id is not None:
            query = query.where(t.tasks.c.token_id == token_id)
        ids = [r.id for r in await self.conn.execute(query, {"b_instance": instance_id})]
        if ids:
            await self.conn.execute(
                t.tasks.update()
                .where(t.tasks.c.id.in_(ids))
                .values(status="cancelled", completed_at=now)
            )
        return ids

    # --- timers -------------------------------------------------------------------------------

    async def add_timer(self, record: TimerRecord) -> None:
        await self.conn.execute(q.INSERT_TIMER, msgspec.structs.asdict(record))

    async def cancel_timers(
        self,
        instance_id: str,
        token_id: str | None,
        node_id: str | None,
        attempt_group: int | None,
        timer_ids: tuple[str, ...] | None,
    ) -> None:
        """Cancel pending timers; ``None`` filters mean "any"."""
        c = t.timers.c
        where = [c.instance_id == instance_id, c.status == "pending"]
        if token_id is not None:
            where.append(c.token_id == token_id)
        if node_id is not None:
            where.append(c.node_id == node_id)
        if attempt_group is not None:
            where.append(c.attempt_group == attempt_group)
        if timer_ids is not None:
            where.append(c.timer_id.in_(timer_ids))
        await self.conn.execute(t.timers.update().where(*where).values(status="cancelled"))

    async def next_timer_due(self, instance_id: str) -> datetime | None:
        value = (
            await self.conn.execute(
                sa.select(sa.func.min(t.timers.c.due_at)).where(
                    t.timers.c.instance_id == instance_id, t.timers.c.status == "pending"
                )
            )
        ).scalar()
        # SQLite hands aggregates back without the column type: normalise through it.
        return UTCDateTime().process_result_value(value, self.conn.dialect)

    async def lock_timer(self, timer_row_id: str) -> TimerRecord | None:
        query = (
            sa.select(t.timers)
            .where(t.timers.c.id == timer_row_id)
            .with_for_update(skip_locked=True)
        )
        row = (await self.conn.execute(query)).first()
        return None if row is None else _struct(TimerRecord, row)

    async def due_timers(self, now: datetime, limit: int) -> list[TimerRecord]:
        query = (
            sa.select(t.timers)
            .where(t.timers.c.status == "pending", t.timers.c.due_at <= now)
            .order_by(t.timers.c.due_at)
            .limit(limit)
        )
        if self.is_postgres:
            query = query.with_for_update(skip_locked=True)
        return [_struct(TimerRecord, r) for r in await self.conn.execute(query)]

    async def timers(self, instance_id: str) -> list[TimerRecord]:
        rows = await self.conn.execute(
            sa.select(t.timers).where(t.timers.c.instance_id == instance_id)
        )
        return [_struct(TimerRecord, r) for r in rows]

    async def mark_timer_fired(self, timer_id: str, now: datetime) -> bool:
        result = await self.conn.execute(
            t.timers.update()
            .where(t.timers.c.id == timer_id, t.timers.c.status == "pending")
            .values(status="fired", fired_at=now)
        )
        return result.rowcount == 1

    # --- dead letters -------------------------------------------------------------------------

    async def add_dead_letter(self, values: dict[str, Any]) -> str:
        letter_id = str(self._ids.new_id())
        await self.conn.execute(
            t.dead_letters.insert().values(id=letter_id, status="open", **values)
        )
        return letter_id

    async def get_dead_letter(self, letter_id: str) -> dict[str, Any] | None:
        row = (
            await self.conn.execute(
                sa.select(t.dead_letters).where(t.dead_letters.c.id == letter_id)
            )
        ).first()
        return None if row is None else dict(row._mapping)

    async def list_dead_letters(self, status: str | None = "open") -> list[dict[str, Any]]:
        query = sa.select(t.dead_letters).order_by(t.dead_letters.c.created_at)
        if status is not None:
            query = query.where(t.dead_letters.c.status == status)
        return [dict(r._mapping) for r in await self.conn.execute(query)]

    async def resolve_dead_letter(self, letter_id: str, status: str, now: datetime) -> None:
        await self.conn.execute(
            t.dead_letters.update()
            .where(t.dead_letters.c.id == letter_id)
            .values(status=status, resolved_at=now)
        )

    async def resolve_open_dead_letters(
        self, instance_id: str, status: str, now: datetime
    ) -> list[str]:
        c = t.dead_letters.c
        mine = (c.instance_id == instance_id, c.status == "open")
        rows = await self.conn.execute(sa.select(c.id).where(*mine).order_by(c.created_at, c.id))
        ids = [str(r.id) for r in rows]
        if ids:
            await self.conn.execute(
                t.dead_letters.update().where(*mine).values(status=status, resolved_at=now)
            )
        return ids

    async def complete_signalled_tasks(
        self, instance_id: str, node_id: str, actor_id: str, now: datetime
    ) -> None:
        c = t.tasks.c
        await self.conn.execute(
            t.tasks.update()
            .where(
                c.instance_id == instance_id,
                c.node_id == node_id,
                c.status.in_(q.OPEN_TASK_STATUSES),
            )
            .values(
                status="completed", completed_by=actor_id, completed_at=now, outcome="signalled"
            )
        )

    # --- outbox and audit ---------------------------------------------------------------------

    async def enqueue(
        self, topic: str, key: str, payload: dict[str, Any], *, available_at: datetime
    ) -> None:
        self._notify = True
        await self._write(
            q.INSERT_OUTBOX,
            {
                "topic": topic,
                "key": key,
                "payload": payload,
                "created_at": self._clock.now(),
                "available_at": available_at,
                "attempts": 0,
            },
        )

    async def due_outbox(self, now: datetime, limit: int) -> list[OutboxMessage]:
        """Unsent rows whose time has come, oldest first; rows other relays hold are skipped."""
        parameters = {"b_now": now, "b_limit": limit}
        rows = None
        if self._hold:  # usually a relay's first statement: BEGIN travels with it
            rows = await self._begin_with(q.DUE_OUTBOX_SKIP_LOCKED, parameters, t.outbox)
        if rows is None:
            query = q.DUE_OUTBOX_SKIP_LOCKED if self.is_postgres else q.DUE_OUTBOX
            rows = list(await self.conn.execute(query, parameters))
        return [
            OutboxMessage(
                id=r.id,
                topic=r.topic,
                key=r.key,
                payload=r.payload,
                available_at=r.available_at.astimezone(UTC),
                attempts=r.attempts,
            )
            for r in rows
        ]

    async def mark_sent(self, ids: list[int], now: datetime) -> None:
        if ids:  # no result needed: on PostgreSQL it goes out with the COMMIT
            await self._write(q.MARK_SENT[self._engine.dialect.name], {"b_ids": ids, "b_now": now})

    async def next_outbox_due(self) -> datetime | None:
        value = (
            await self.conn.execute(
                sa.select(sa.func.min(t.outbox.c.available_at)).where(t.outbox.c.sent_at.is_(None))
            )
        ).scalar()
        if value is None:
            return None
        return UTCDateTime().process_result_value(value, self.conn.dialect)

    async def expired_leases(self, now: datetime, limit: int) -> list[StepRunRecord]:
        c = t.step_runs.c
        rows = await self.conn.execute(
            sa.select(t.step_runs)
            .where(c.status == "running", c.lease_expires_at < now)
            .order_by(c.lease_expires_at)
            .limit(limit)
        )
        return [_struct(StepRunRecord, r) for r in rows]

    async def stranded_steps(self, before: datetime, limit: int) -> list[StepRunRecord]:
        """Scheduled steps, due before ``before``, whose message was already sent: the broker
        lost it (a Redis restart) or its consumer died before claiming."""
        c = t.step_runs.c
        o = t.outbox.c
        pending_message = sa.exists().where(o.key == sa.cast(c.id, sa.String), o.sent_at.is_(None))
        rows = await self.conn.execute(
            sa.select(t.step_runs)
            .where(c.status == "scheduled", c.available_at < before, ~pending_message)
            .order_by(c.available_at)
            .limit(limit)
        )
        return [_struct(StepRunRecord, r) for r in rows]

    async def audit(self, entry: AuditEntry) -> None:
        if self._hold and isinstance(self._audit, SqlAuditWriter):
            # Its row is computed on the server from the head it reads under the chain's lock:
            # both travel last with the COMMIT (``_send_order``).
            if not self._chain_locked:
                self._held.append(_Held(LOCK_CHAIN, {}))
                self._chain_locked = True
            self._held.append(_Held(CHAINED_INSERT, self._audit.chained_parameters(entry)))
            return
        await self._audit.append(self._raw, entry)
