"""A transaction its caller did not commit leaves nothing behind; on PostgreSQL one that only
read is committed instead of rolled back, so psycopg keeps the connection's prepared statements
(it drops them all on every ROLLBACK)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from core.db import create_engine, end_uncommitted

PROBE = sa.table("probe", sa.column("n", sa.Integer))


async def _prepared_names(conn: Any) -> int:
    raw = await conn.get_raw_connection()
    return len(raw.driver_connection._prepared._names)


async def test_an_uncommitted_write_is_rolled_back(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        async with engine.connect() as conn:
            await conn.execute(sa.text("CREATE TABLE probe (n INTEGER)"))
            await conn.commit()
        async with engine.connect() as conn:
            await conn.begin()
            await conn.execute(PROBE.insert().values(n=1))
            await end_uncommitted(conn, failed=False)
        async with engine.connect() as conn:
            await conn.begin()
            await conn.execute(PROBE.insert().values(n=2))
            await end_uncommitted(conn, failed=True)
        async with engine.connect() as conn:
            assert (await conn.execute(sa.select(sa.func.count()).select_from(PROBE))).scalar() == 0
    finally:
        await engine.dispose()


async def test_a_read_only_transaction_keeps_prepared_statements(database_url: str) -> None:
    engine = create_engine(database_url, pool_size=1)
    query = sa.select(sa.literal(1).label("one"))
    try:
        async with engine.connect() as conn:
            is_postgres = conn.dialect.name == "postgresql"
            for _ in range(6):  # psycopg prepares a statement on its fifth execution
                await conn.begin()
                assert (await conn.execute(query)).scalar() == 1
                await end_uncommitted(conn, failed=False)
            if is_postgres:
                assert await _prepared_names(conn) >= 1
                await conn.begin()
                await conn.execute(query)
                await end_uncommitted(conn, failed=True)  # a failed one still rolls back
                assert await _prepared_names(conn) == 0
            assert not conn.in_transaction()
    finally:
        await engine.dispose()
