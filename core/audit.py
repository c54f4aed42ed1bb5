"""The audit writer: append-only rows in the caller's transaction.

The table refuses UPDATE and DELETE through database triggers (see the ``core`` migration), so
the trail cannot be edited through the application even by mistake.
"""

from __future__ import annotations

from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from contracts.kernel import Actor, AuditEntry, AuditRecord, Clock, IdGen
from core.tables import audit_log


class SqlAuditWriter:
    def __init__(self, clock: Clock, ids: IdGen) -> None:
        self._clock = clock
        self._ids = ids

    async def append(self, connection: Any, entry: AuditEntry) -> None:
        conn: AsyncConnection = connection
        await conn.execute(
            audit_log.insert().values(
                id=str(self._ids.new_id()),
                at=self._clock.now(),
                action=entry.action,
                object_type=entry.object_type,
                object_id=entry.object_id,
                actor_kind=entry.actor.kind,
                actor_id=entry.actor.id,
                before=entry.before,
                after=entry.after,
                reason=entry.reason,
                correlation_id=entry.correlation_id,
            )
        )


async def read_trail(conn: AsyncConnection, object_type: str, object_id: str) -> list[AuditRecord]:
    """Every audit entry of one object, oldest first."""
    rows = await conn.execute(
        sa.select(audit_log)
        .where(audit_log.c.object_type == object_type, audit_log.c.object_id == object_id)
        .order_by(audit_log.c.seq)
    )
    return [
        AuditRecord(
            seq=row.seq,
            at=row.at,
            hash="",
            entry=AuditEntry(
                action=row.action,
                object_type=row.object_type,
                object_id=row.object_id,
                actor=Actor(kind=row.actor_kind, id=row.actor_id),
                before=row.before,
                after=row.after,
                reason=row.reason,
                correlation_id=row.correlation_id,
            ),
        )
        for row in rows
    ]


def to_json(entry: AuditEntry) -> bytes:
    return msgspec.json.encode(entry)
