"""Timers: boundary and intermediate timer events, due at a moment."""

from __future__ import annotations

from datetime import datetime

import msgspec
import sqlalchemy as sa

from core.dbtypes import UTCDateTime
from services.workflow.persistence import statements as q
from services.workflow.persistence import tables as t
from services.workflow.persistence.repositories import struct
from services.workflow.persistence.write_buffer import WriteBuffer
from services.workflow.runtime.ports import TimerRecord


class SqlTimers:
    """Implements ``runtime.ports.Timers``."""

    def __init__(self, db: WriteBuffer) -> None:
        self._db = db

    async def add(self, record: TimerRecord) -> None:
        await self._db.conn.execute(q.INSERT_TIMER, msgspec.structs.asdict(record))

    async def cancel(
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
        await self._db.conn.execute(t.timers.update().where(*where).values(status="cancelled"))

    async def next_due(self, instance_id: str) -> datetime | None:
        value = (
            await self._db.conn.execute(
                sa.select(sa.func.min(t.timers.c.due_at)).where(
                    t.timers.c.instance_id == instance_id, t.timers.c.status == "pending"
                )
            )
        ).scalar()
        # SQLite hands aggregates back without the column type: normalise through it.
        return UTCDateTime().process_result_value(value, self._db.conn.dialect)

    async def lock(self, timer_row_id: str) -> TimerRecord | None:
        query = (
            sa.select(t.timers)
            .where(t.timers.c.id == timer_row_id)
            .with_for_update(skip_locked=True)
        )
        row = (await self._db.conn.execute(query)).first()
        return None if row is None else struct(TimerRecord, row)

    async def due(self, now: datetime, limit: int) -> list[TimerRecord]:
        query = (
            sa.select(t.timers)
            .where(t.timers.c.status == "pending", t.timers.c.due_at <= now)
            .order_by(t.timers.c.due_at)
            .limit(limit)
        )
        if self._db.is_postgres:
            query = query.with_for_update(skip_locked=True)
        return [struct(TimerRecord, r) for r in await self._db.conn.execute(query)]

    async def of(self, instance_id: str) -> list[TimerRecord]:
        rows = await self._db.conn.execute(
            sa.select(t.timers).where(t.timers.c.instance_id == instance_id)
        )
        return [struct(TimerRecord, r) for r in rows]

    async def mark_fired(self, timer_id: str, now: datetime) -> bool:
        result = await self._db.conn.execute(
            t.timers.update()
            .where(t.timers.c.id == timer_id, t.timers.c.status == "pending")
            .values(status="fired", fired_at=now)
        )
        return bool(result.rowcount == 1)
