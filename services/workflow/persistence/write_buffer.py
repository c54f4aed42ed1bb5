"""The transaction's connection and, on PostgreSQL, the writes it holds back to send together.

The rows a transition adds and never reads back in the same transaction (the instance row of a
start, history, step runs, outbox, audit) are not sent one by one: the buffer keeps them and
sends them together as one query string (``pg_batch``: one ``send()``, one round trip), either
just before the next statement that goes through ``conn`` (so every read, and every write that
could depend on them, sees them) or, usually, together with the NOTIFY and the COMMIT. Updates
whose result the caller would check (a step's lease, the instance's version, a claim) are held
too, in forms that fail on the server instead (``workflow_expect``, migration workflow_0002).
The transaction's BEGIN is not a round trip of its own either: a first plain read runs before
it (``read``: the same rows under READ COMMITTED), and BEGIN travels with the first write
(``pg_batch.send``, ``begin_with``). So a finishing step is one round trip where it was six, a
claim two where it was four, and a start three (latest version, protocol number, the rest)
where it was twelve. An error in a held-back write surfaces at that flush and aborts the
transaction; a history number already taken is reported as ``ConcurrentModification``. SQLite
sends every statement at once (it has no network to save).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import sqlalchemy as sa
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from contracts.errors import ConcurrentModification, Conflict
from core import pg_batch
from core.audit import CHAINED_INSERT, LOCK_CHAIN
from core.db import mark_written
from services.workflow.persistence import statements as q
from services.workflow.persistence import tables as t
from services.workflow.persistence.joined_updates import JoinedUpdates
from services.workflow.runtime.kernel.naming import OUTBOX_CHANNEL
from services.workflow.runtime.ports import ClaimLost, LeaseLost

if TYPE_CHECKING:  # psycopg is imported where it is used (PostgreSQL): SQLite never loads it
    import psycopg

_NOTIFY = sa.text(f"NOTIFY {OUTBOX_CHANNEL}")
_NOTIFY_SQL = f"NOTIFY {OUTBOX_CHANNEL}".encode()
_APPENDED = (q.INSERT_HISTORY, q.INSERT_OUTBOX)
"""Inserts whose held rows a flush sends as one statement per table (their order kept: the
outbox's serial ids follow it)."""


def _appended(held: Held) -> bool:
    return any(held.statement is statement for statement in _APPENDED)


class Held(NamedTuple):
    """A write not sent yet (``history_of``: the instance whose history rows these are, or
    whose version this update checks, to report a taken number or a moved version as a
    concurrent change)."""

    statement: Any
    parameters: Any
    history_of: str | None = None


def taken_over() -> Conflict:
    return Conflict(
        "another attempt of this request took its Idempotency-Key over",
        code="idempotency_key_taken_over",
    )


def _failed_check(exc: Exception, held: list[Held]) -> Exception | None:
    """What a failed ``workflow_expect`` in a held-back update means, if that is what failed."""
    diag = getattr(getattr(exc, "orig", exc), "diag", None)
    if diag is None or diag.sqlstate != "40001":
        return None
    if diag.message_primary == q.LEASE_LOST:
        return LeaseLost()
    if diag.message_primary == q.CLAIM_LOST:
        return ClaimLost()
    if diag.message_primary == q.IDEMPOTENCY_LOST:
        return taken_over()
    if diag.message_primary == q.INSTANCE_CHANGED:
        instance_id = next(
            (h.history_of for h in held if h.statement is q.UPDATE_INSTANCE_CHECKED), None
        )
        return ConcurrentModification(
            "the instance changed since it was read", instance_id=instance_id
        )
    return None


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


def _write_error(exc: Exception, held: list[Held], history_of: str | None) -> Exception:
    """What a failed held-back write means to the caller, however it was sent."""
    if isinstance(exc, IntegrityError):
        return _history_conflict(exc, history_of)
    return _failed_check(exc, held) or exc


def _send_order(held: Held) -> int:
    """Where a held write goes in its flush: the instance's row first (see ``flush``), the
    audit chain's lock and rows last, so that lock is held only from there to the COMMIT and
    its holder never waits for a row lock (every other transaction waiting for it may hold
    some)."""
    if held.statement is LOCK_CHAIN or held.statement is CHAINED_INSERT:
        return 2
    return 0 if getattr(held.statement, "table", None) is t.instances else 1


class _FlushingConnection:
    """What ``conn`` hands out on PostgreSQL: the transaction's connection, which sends the
    held-back writes before any statement of its own."""

    def __init__(self, buffer: WriteBuffer, conn: AsyncConnection) -> None:
        self._buffer = buffer
        self._conn = conn

    async def execute(self, statement: Any, parameters: Any = None, **kw: Any) -> Any:
        await self._buffer.flush()
        return await self._conn.execute(statement, parameters, **kw)

    def begin_nested(self) -> Any:
        if self._buffer.holding:
            raise RuntimeError("flush() the held-back writes before a savepoint")
        return self._conn.begin_nested()

    def __getattr__(self, name: str) -> Any:
        if name in ("commit", "rollback", "exec_driver_sql", "stream", "scalar", "scalars"):
            raise AttributeError(f"uow.conn.{name} is not available: use the unit of work")
        return getattr(self._conn, name)


class WriteBuffer:
    """One transaction's connection (``open`` to ``close``) and its held-back writes."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.dialect = engine.dialect
        self.hold = engine.dialect.name == "postgresql"
        """Whether writes are held back (PostgreSQL) or sent at once (SQLite)."""
        self.held: list[Held] = []
        self.notify = False
        """Whether the COMMIT carries a NOTIFY for the outbox relays."""
        self.chains_locked: set[str] = set()
        """The tenants whose audit chain's lock is among the held writes already."""
        self.tenants: dict[str, str] = {}
        """The tenant of each instance this transaction read or wrote (its audit entries go
        to that tenant's chains)."""
        self.instance_insert_held = False
        """Whether an instance's INSERT is among the held writes (its first update is then
        sent at once: the checked form needs the row on the server)."""
        self._conn: AsyncConnection | None = None
        self._facade: AsyncConnection | None = None
        self.joining: dict[int, tuple[Held, dict[str, Any]]] = {}
        """Held per-instance writes others may still join (``joined_writes.write_per_instance``)."""
        self.joined_upto = 0

    def open(self, conn: AsyncConnection) -> None:
        self._conn = conn
        self._facade = cast(AsyncConnection, _FlushingConnection(self, conn)) if self.hold else conn
        self.held, self.notify, self.chains_locked, self.tenants = [], False, set(), {}
        self.instance_insert_held = False
        self.joining, self.joined_upto = {}, 0

    def close(self) -> AsyncConnection | None:
        """Forget the connection and the held writes (never sent: nothing to undo)."""
        conn, self._conn, self._facade = self._conn, None, None
        self.held, self.instance_insert_held = [], False
        self.joining, self.joined_upto = {}, 0
        return conn

    @property
    def conn(self) -> AsyncConnection:
        """The connection for a statement that must see every held write (sent first)."""
        if self._facade is None:
            raise RuntimeError("unit of work used outside 'async with'")
        return self._facade

    @property
    def raw(self) -> AsyncConnection:
        if self._conn is None:
            raise RuntimeError("unit of work used outside 'async with'")
        return self._conn

    @property
    def is_postgres(self) -> bool:
        return self.dialect.name == "postgresql"

    @property
    def holding(self) -> bool:
        return bool(self.held)

    @staticmethod
    async def leave_autocommit(conn: AsyncConnection) -> None:
        """Never hand a connection back to the pool in autocommit (``begin_with`` leaves it
        so until here; ``read`` and ``pg_batch.send`` may fail to switch back, if cancelled
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

    async def begin_with(
        self, statement: Any, parameters: dict[str, Any], *tables: sa.Table
    ) -> list[Any] | None:
        """PostgreSQL: a first statement whose result is needed, with the transaction's BEGIN
        in the same query (psycopg would send BEGIN alone first, a round trip of its own).
        Returns its rows as psycopg gives them (named tuples, values as psycopg loads them), or
        None when the transaction has already begun, or when held writes touch ``tables`` (what
        the statement reads or changes): the caller then runs it the ordinary way, which sends
        them first. psycopg stays in autocommit until the unit of work ends, so it adds no
        BEGIN of its own; COMMIT and ROLLBACK work as usual."""
        if any(getattr(h.statement, "table", None) in tables for h in self.held):
            return None
        import psycopg
        from psycopg.rows import namedtuple_row

        driver = await self.driver()
        if driver.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            return None
        cursor = psycopg.AsyncClientCursor(driver, row_factory=namedtuple_row)
        (sql,) = pg_batch.render(cursor, statement, parameters, self.dialect)
        await driver.set_autocommit(True)
        mark_written(self.raw)
        try:
            await cursor.execute(b"BEGIN;\n" + sql, prepare=False)
        except psycopg.Error as exc:
            raise pg_batch.as_dbapi_error(exc) from exc
        cursor.nextset()
        return await cursor.fetchall()

    async def driver(self) -> psycopg.AsyncConnection[Any]:
        """The psycopg connection under the transaction (PostgreSQL)."""
        driver = (await self.raw.get_raw_connection()).driver_connection
        assert driver is not None
        return cast("psycopg.AsyncConnection[Any]", driver)

    async def read(self, statement: Any, parameters: Any) -> Any:
        """A plain read (no lock). On PostgreSQL, as the first statement of the unit of work, it
        runs before the transaction begins on the server: under READ COMMITTED a lone SELECT
        sees the same rows either way, and the transaction's BEGIN then travels with its first
        write (see ``pg_batch``) instead of costing a round trip of its own."""
        if self.hold and not self.held:
            import psycopg

            driver = await self.driver()
            if driver.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
                await driver.set_autocommit(True)
                try:
                    return await self.raw.execute(statement, parameters)
                finally:
                    with contextlib.suppress(psycopg.Error):  # else __aexit__ discards it
                        await driver.set_autocommit(False)
        return await self.conn.execute(statement, parameters)

    def via(self, *tables: sa.Table) -> AsyncConnection:
        """The connection for a statement that reads or changes only ``tables``: it need not
        wait for held-back writes to other tables (those neither read nor change its rows),
        which then still travel with the COMMIT."""
        if any(getattr(h.statement, "table", None) in tables for h in self.held):
            return self.conn
        return self.raw

    async def write(self, statement: Any, parameters: Any, history_of: str | None = None) -> None:
        """Send a write whose result nobody needs in this transaction, or hold it back
        (PostgreSQL)."""
        if self.hold:
            self.held.append(Held(statement, parameters, history_of))
            self.instance_insert_held |= statement is q.INSERT_INSTANCE
        else:
            await self._send(self.raw, Held(statement, parameters, history_of))

    async def flush(self, *, commit: bool = False) -> None:
        """Send the held-back writes (and, with ``commit``, the NOTIFY and the COMMIT) in one
        round trip."""
        # The instance's row first: every transaction that changes an instance and its step
        # runs or timers then locks them in the same order (the tick locks the instance before
        # its timers and step runs), so a finishing step and a firing timer cannot deadlock.
        # The sort is stable: everything else keeps the order it was written in.
        held = sorted(self.held, key=_send_order)
        self.held, self.instance_insert_held = [], False
        self.joining, self.joined_upto = {}, 0
        conn = self.raw
        if not commit and len(held) < 2:
            for item in held:  # one statement: a batch would save nothing
                await self._send(conn, item)
            return
        driver = await self.driver()
        history_of = next(
            (h.history_of for h in held if h.statement is q.INSERT_HISTORY and h.history_of), None
        )
        if all(pg_batch.renderable(h.statement, h.parameters, self.dialect) for h in held):
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
                    if self.notify:
                        # Delivered only if the transaction commits: relays wake at once.
                        await conn.execute(_NOTIFY)
                    await conn.commit()
        except (DBAPIError, psycopg.Error) as exc:
            raise _write_error(exc, held, history_of) from exc

    async def _send_batch(
        self,
        conn: AsyncConnection,
        driver: psycopg.AsyncConnection[Any],
        held: list[Held],
        *,
        commit: bool,
        history_of: str | None,
    ) -> None:
        """The held writes (and NOTIFY, COMMIT) as one query string: see ``pg_batch``."""
        import psycopg

        renderer = pg_batch.Renderer(psycopg.AsyncClientCursor(driver), self.dialect)
        # One multi-row INSERT per appended table, where the first of its rows was: those rows
        # are only added, never read or changed by the transaction that adds them.
        appended: dict[Any, list[dict[str, Any]]] = {}
        for h in held:
            if _appended(h):
                more = h.parameters if isinstance(h.parameters, list) else [h.parameters]
                appended.setdefault(h.statement, []).extend(more)
        # The checked updates of instance rows likewise, as one UPDATE ... FROM (VALUES ...).
        joined = JoinedUpdates(held)
        statements: list[bytes] = []
        for at, h in enumerate(held):
            if not _appended(h):
                statements += joined.render(renderer, self.dialect, at, h)
            elif (rows := appended.pop(h.statement, None)) is not None:
                statements += renderer.render_rows(h.statement, rows)
        if commit and self.notify:
            statements.append(_NOTIFY_SQL)
        mark_written(conn)
        try:
            await pg_batch.send(driver, statements, commit=commit)
        except psycopg.Error as exc:
            raise _write_error(pg_batch.as_dbapi_error(exc), held, history_of) from exc
        if commit:
            await conn.commit()  # ends SQLAlchemy's transaction; the server's has ended

    async def _send(self, conn: AsyncConnection, item: Held) -> None:
        try:
            await conn.execute(item.statement, item.parameters)
        except DBAPIError as exc:
            raise _write_error(exc, [item], item.history_of) from exc

    async def commit(self) -> None:
        """The held writes, the NOTIFY and the COMMIT; or the plain COMMIT."""
        if self.held or (self.notify and self.hold):
            await self.flush(commit=True)
        else:
            await self.raw.commit()
