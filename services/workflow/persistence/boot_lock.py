"""One process at a time publishes what the modules registered.

Several processes often start together (a worker pool, the web and the relay after a
deploy), and each publishes the registered queues, forms, units, calendars, document types
and definitions at boot. Each of those writes reads first and inserts what is missing; under
PostgreSQL's READ COMMITTED two boots could both find a queue missing and the second insert
would fail. A session advisory lock makes the boots take turns: the later ones find
everything published and change nothing. SQLite needs nothing: every transaction starts with
``BEGIN IMMEDIATE``, so the read and the insert are already one writer's.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

BOOT_LOCK_KEY = 7_243_190_001
"""The advisory lock's key (any constant no other lock of ours uses)."""


@contextlib.asynccontextmanager
async def publishing_turn(engine: AsyncEngine) -> AsyncIterator[None]:
    """Hold the boot-publication lock (PostgreSQL) for the duration of the block."""
    if engine.dialect.name != "postgresql":
        yield
        return
    async with engine.connect() as conn:
        await conn.execute(sa.text("SELECT pg_advisory_lock(:k)"), {"k": BOOT_LOCK_KEY})
        await conn.commit()
        try:
            yield
        finally:
            await conn.execute(sa.text("SELECT pg_advisory_unlock(:k)"), {"k": BOOT_LOCK_KEY})
            await conn.commit()
