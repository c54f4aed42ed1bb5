"""The SQLAlchemy 2 async engine for SQLite (embedded) and PostgreSQL (psycopg 3).

SQLite runs in WAL mode and every transaction starts with ``BEGIN IMMEDIATE``: it takes the
database write lock up front, which is SQLite's equivalent of holding the instance row with
``SELECT ... FOR UPDATE`` (writers queue on ``busy_timeout`` instead of failing mid-way).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool

SQLITE_BUSY_TIMEOUT_MS = 30_000


def is_sqlite(engine: AsyncEngine) -> bool:
    return engine.dialect.name == "sqlite"


def create_engine(url: str, *, pool_size: int = 10, echo: bool = False) -> AsyncEngine:
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
    return create_async_engine(
        url,
        echo=echo,
        pool_size=pool_size,
        max_overflow=pool_size,
        pool_pre_ping=True,
    )


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

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def sync_url(url: str) -> str:
    """The synchronous driver URL for the same database (Alembic runs synchronously)."""
    parsed = make_url(url)
    if parsed.drivername == "sqlite+aiosqlite":
        parsed = parsed.set(drivername="sqlite")
    return parsed.render_as_string(hide_password=False)
