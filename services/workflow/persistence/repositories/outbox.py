"""The outbox: messages committed with the state that caused them, relayed afterwards."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from contracts.kernel import Clock
from core.dbtypes import UTCDateTime
from services.workflow.persistence import statements as q
from services.workflow.persistence import tables as t
from services.workflow.persistence.write_buffer import WriteBuffer
from services.workflow.runtime.ports import OutboxMessage


class SqlOutbox:
    """Implements ``runtime.ports.Outbox``."""

    def __init__(self, db: WriteBuffer, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    async def enqueue(
        self, topic: str, key: str, payload: dict[str, Any], *, available_at: datetime
    ) -> None:
        self._db.notify = True
        await self._db.write(
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

    async def due(self, now: datetime, limit: int) -> list[OutboxMessage]:
        """Unsent rows whose time has come, oldest first; rows other relays hold are skipped."""
        parameters = {"b_now": now, "b_limit": limit}
        rows = None
        if self._db.hold:  # usually a relay's first statement: BEGIN travels with it
            rows = await self._db.begin_with(q.DUE_OUTBOX_SKIP_LOCKED, parameters, t.outbox)
        if rows is None:
            query = q.DUE_OUTBOX_SKIP_LOCKED if self._db.is_postgres else q.DUE_OUTBOX
            rows = list(await self._db.conn.execute(query, parameters))
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
            statement = q.MARK_SENT[self._db.dialect.name]
            await self._db.write(statement, {"b_ids": ids, "b_now": now})

    async def next_due(self) -> datetime | None:
        value = (
            await self._db.conn.execute(
                sa.select(sa.func.min(t.outbox.c.available_at)).where(t.outbox.c.sent_at.is_(None))
            )
        ).scalar()
        if value is None:
            return None
        return UTCDateTime().process_result_value(value, self._db.conn.dialect)
