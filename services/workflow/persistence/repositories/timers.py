"""Timers: boundary and intermediate timer events, due at a moment."""

from __future__ import annotations

import functools
from datetime import datetime

import msgspec
import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import ARRAY

from core.dbtypes import UTCDateTime
from services.workflow.persistence import statements as q
from services.workflow.persistence import tables as t
from services.workflow.persistence.joined_writes import write_per_instance
from services.workflow.persistence.repositories import struct, structs
from services.workflow.persistence.write_buffer import WriteBuffer
from services.workflow.runtime.ports import TimerRecord


@functools.cache
def _cancel_statement(dialect: str, keys: frozenset[str]) -> sa.Update:
    """One prepared form per set of filters (and dialect), so a held write renders fast."""
    c = t.timers.c
    where = [c.instance_id == sa.bindparam("b_instance"), c.status == "pending"]
    if "b_token" in keys:
        where.append(c.token_id == sa.bindparam("b_token"))
    if "b_node" in keys:
        where.append(c.node_id == sa.bindparam("b_node"))
    if "b_group" in keys:
        where.append(c.attempt_group == sa.bindparam("b_group"))
    if "b_timer_ids" in keys:
        if dialect == "postgresql":
            ids = sa.bindparam("b_timer_ids", type_=ARRAY(sa.String))
            where.append(c.timer_id == sa.any_(ids))
        else:
            where.append(c.timer_id.in_(sa.bindparam("b_timer_ids", expanding=True)))
    return t.timers.update().where(*where).values(status="cancelled")


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
        """Cancel pending timers; ``None`` filters mean "any". Nothing is read back, so on
        PostgreSQL the update travels with the COMMIT (held like the history rows)."""
        params: dict[str, object] = {"b_instance": instance_id}
        for name, value in (
            ("b_token", token_id),
            ("b_node", node_id),
            ("b_group", attempt_group),
            ("b_timer_ids", None if timer_ids is None else list(timer_ids)),
        ):
            if value is not None:
                params[name] = value
        statement = _cancel_statement(self._db.dialect.name, frozenset(params))
        if len(params) == 1:  # all of the instance's (an ending case): joined in a batch
            await write_per_instance(
                self._db, statement, q.CANCEL_PENDING_TIMERS_OF, instance_id, {}
            )
            return
        await self._db.write(statement, params)

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

    async def claim_due(self, now: datetime, limit: int) -> list[TimerRecord]:
        statement = q.CLAIM_DUE_TIMERS[self._db.dialect.name]
        result = await self._db.conn.execute(statement, {"b_now": now, "b_limit": limit})
        return structs(TimerRecord, result)

    async def mark_fired_many(self, timer_ids: list[str], now: datetime) -> set[str]:
        if not timer_ids:
            return set()
        statement = q.MARK_TIMERS_FIRED[self._db.dialect.name]
        result = await self._db.conn.execute(statement, {"b_ids": timer_ids, "b_now": now})
        return {str(i) for i in result.scalars()}
