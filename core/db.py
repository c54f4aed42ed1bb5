"""The SQLAlchemy 2 async engine for SQLite (embedded) and PostgreSQL (psycopg 3).

SQLite runs in WAL mode and every transaction starts with ``BEGIN IMMEDIATE``: it takes the
database write lock up front, which is SQLite's equivalent of holding the instance row with
``SELECT ... FOR UPDATE`` (writers queue on ``busy_timeout`` instead of failing mid-way).

A PostgreSQL transaction that wrote nothing is ended with COMMIT rather than ROLLBACK by
:func:`end_uncommitted` (the same effect on the server): psycopg discards every prepared
statement of a connection on ROLLBACK, so a read-only unit of work in a busy process would
otherwise make the next transactions on that connection parse and plan their statements again.

PostgreSQL connections are checked with a ping when they leave the pool after sitting idle for
``PING_AFTER_IDLE_S`` or more (a dead one is replaced transparently). A connection handed back
and out again within that time is not pinged: under load that saves a round trip on every
transaction. If the server restarts in that short window, the one transaction that meets the
dead connection fails; SQLAlchemy then discards every pooled connection made before it.
"""

from __future__ import annotations

import json
import time
from typing import Any

import msgspec
from sqlalchemy import event, exc
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool

from core.textfold import SQLITE_FUNCTION, folded

SQLITE_BUSY_TIMEOUT_MS = 30_000
PING_AFTER_IDLE_S = 1.0
_WROTE = "tramita_wrote"
"""``Connection.info`` key: the current transaction sent something other than a SELECT."""


def is_sqlite(engine: AsyncEngine) -> bool:
    return engine.dialect.name == "sqlite"


def create_engine(
    url: str,
    *,
    pool_size: int = 10,
    echo: bool = False,
    ping_after_idle_s: float = PING_AFTER_IDLE_S,
) -> AsyncEngine:
    """An async engine for ``url`` with the pragmas and pool settings Tramita relies on."""
    if url.startswith("sqlite"):
        engine = create_async_engine(
            url,
            echo=echo,
            poolclass=NullPool,
            connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
        )
        _configure_sqlite(engine)
        return engine
    engine = create_async_engine(
        url,
        echo=echo,
        pool_size=pool_size,
        max_overflow=pool_size,
        # psycopg takes the bytes as they are; msgspec encodes several times faster than json.
        json_serializer=msgspec.json.encode,
        json_deserializer=json_loads,
    )
    _ping_when_idle(engine, ping_after_idle_s)
    _track_writes(engine)
    return engine


def json_loads(data: bytes | str) -> Any:
    """``json.loads`` for what PostgreSQL returns, by msgspec (several times faster, and the
    same values: ints of any size, floats rounded alike, the last of duplicate keys); what
    msgspec refuses (a number beyond a float's range, which ``json`` reads as ``inf``; a lone
    surrogate escape in a ``json`` column) goes to ``json.loads`` as before."""
    try:
        return msgspec.json.decode(data)
    except msgspec.DecodeError:  # ValidationError is one too
        return json.loads(data)


def _track_writes(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.info[_WROTE] = False

    @event.listens_for(engine.sync_engine, "before_cursor_execute")
    def _on_execute(conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        # Anything but a plain SELECT (a NOTIFY, a WITH ..., DML) counts as a write.
        if not statement.startswith("SELECT"):
            conn.info[_WROTE] = True


def mark_written(conn: AsyncConnection) -> None:
    """Record that the current transaction wrote, for statements sent past SQLAlchemy (the
    driver's connection used directly): :func:`end_uncommitted` must then roll it back."""
    conn.info[_WROTE] = True


async def end_uncommitted(conn: AsyncConnection, *, failed: bool) -> None:
    """End a transaction its caller did not commit: roll it back, or, on PostgreSQL when it
    did not fail and sent nothing but SELECTs, commit it (the same effect, and psycopg keeps
    the connection's prepared statements)."""
    if not failed and conn.dialect.name == "postgresql" and conn.info.get(_WROTE) is False:
        await conn.commit()
    else:
        await conn.rollback()


def _ping_when_idle(engine: AsyncEngine, after_s: float) -> None:
    """SQLAlchemy's ``pool_pre_ping``, but only for connections idle ``after_s`` or longer."""
    pool = engine.sync_engine.pool
    dialect = engine.dialect

    @event.listens_for(pool, "checkin")
    def _on_checkin(_dbapi_connection: Any, record: Any) -> None:
        record.info["tramita_idle_since"] = time.monotonic()

    @event.listens_for(pool, "checkout")
    def _on_checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        idle_since = record.info.get("tramita_idle_since")
        if idle_since is None or time.monotonic() - idle_since < after_s:
            return
        try:
            dialect.do_ping(dbapi_connection)
        except Exception as error:
            # The pool discards this connection and checks out a fresh one (up to 3 tries).
            raise exc.DisconnectionError("the pooled connection is gone") from error


def _configure_sqlite(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let us issue BEGIN ourselves (pysqlite's implicit transactions defer the lock).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()
        dbapi_connection.create_function(SQLITE_FUNCTION, 1, folded, deterministic=True)

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def sync_url(url: str) -> str:
    """The synchronous driver URL for the same database (Alembic runs synchronously)."""
    parsed = make_url(url)
    if parsed.drivername == "sqlite+aiosqlite":
        parsed = parsed.set(drivername="sqlite")
    return parsed.render_as_string(hide_password=False)
