"""An instance's history: one row per transition, numbered from the state version."""

from __future__ import annotations

import sqlalchemy as sa

from contracts.kernel import Actor, IdGen
from services.workflow.persistence import statements as q
from services.workflow.persistence import tables as t
from services.workflow.persistence.write_buffer import WriteBuffer
from services.workflow.runtime.ports import HistoryRecord


class SqlHistory:
    """Implements ``runtime.ports.History``."""

    def __init__(self, db: WriteBuffer, ids: IdGen) -> None:
        self._db = db
        self._ids = ids

    async def append(self, instance_id: str, seq: int, record: HistoryRecord) -> None:
        await self._db.conn.execute(
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

    async def append_rows(self, instance_id: str, records: list[HistoryRecord]) -> None:
        """All history rows of one applied event, in one statement; ``ConcurrentModification``
        when one of their numbers is taken (another event was applied to that version)."""
        if not records:
            return
        # executemany of one prebuilt statement: compiled once and cached (a multi-row VALUES
        # statement would be compiled anew for every call). History numbers come from the state
        # version, so a taken number means another event was applied to that version first.
        await self._db.write(
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

    async def of(self, instance_id: str) -> list[HistoryRecord]:
        rows = await self._db.conn.execute(
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

    async def last_seq(self, instance_id: str) -> int:
        value = (
            await self._db.conn.execute(
                sa.select(sa.func.max(t.history.c.seq)).where(
                    t.history.c.instance_id == instance_id
                )
            )
        ).scalar()
        return int(value or 0)
