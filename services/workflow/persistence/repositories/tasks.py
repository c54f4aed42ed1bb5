"""Human tasks, as the engine creates, closes and escalates them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
import sqlalchemy as sa

from services.workflow.persistence import statements as q
from services.workflow.persistence import tables as t
from services.workflow.persistence.repositories import struct
from services.workflow.persistence.write_buffer import WriteBuffer
from services.workflow.runtime.ports import TaskRecord


class SqlTasks:
    """Implements ``runtime.ports.Tasks``."""

    def __init__(self, db: WriteBuffer) -> None:
        self._db = db

    async def add(self, record: TaskRecord) -> None:
        await self._db.conn.execute(q.INSERT_TASK, msgspec.structs.asdict(record))

    async def lock(self, task_id: str) -> TaskRecord | None:
        row = (
            await self._db.conn.execute(
                sa.select(t.tasks).where(t.tasks.c.id == task_id).with_for_update()
            )
        ).first()
        return None if row is None else struct(TaskRecord, row)

    async def update(self, task_id: str, **values: Any) -> None:
        await self._db.conn.execute(
            t.tasks.update().where(t.tasks.c.id == task_id).values(**values)
        )

    async def of(self, instance_id: str) -> list[TaskRecord]:
        rows = await self._db.conn.execute(
            sa.select(t.tasks)
            .where(t.tasks.c.instance_id == instance_id)
            .order_by(t.tasks.c.created_at, t.tasks.c.id)
        )
        return [struct(TaskRecord, r) for r in rows]

    async def close(
        self,
        instance_id: str,
        token_id: str,
        node_id: str,
        attempt_group: int,
        *,
        reason: str,
        now: datetime,
    ) -> None:
        """Close a token's open tasks at a node. The task a person completed is marked by the
        engine itself; whatever is still open here is cancelled with ``reason``."""
        await self._db.conn.execute(
            _open_at(instance_id, token_id, node_id, attempt_group).values(
                status="cancelled", completed_at=now, outcome=f"closed:{reason}"
            )
        )

    async def escalate(
        self, instance_id: str, token_id: str, node_id: str, attempt_group: int, queue: str
    ) -> None:
        await self._db.conn.execute(
            _open_at(instance_id, token_id, node_id, attempt_group).values(
                queue=queue, assignee=None, status="ready", claimed_at=None
            )
        )

    async def cancel_open(self, instance_id: str, token_id: str | None, now: datetime) -> list[str]:
        query = q.OPEN_TASK_IDS
        if token_id is not None:
            query = query.where(t.tasks.c.token_id == token_id)
        ids = [r.id for r in await self._db.conn.execute(query, {"b_instance": instance_id})]
        if ids:
            await self._db.conn.execute(
                t.tasks.update()
                .where(t.tasks.c.id.in_(ids))
                .values(status="cancelled", completed_at=now)
            )
        return ids

    async def complete_signalled(
        self, instance_id: str, node_id: str, actor_id: str, now: datetime
    ) -> None:
        c = t.tasks.c
        await self._db.conn.execute(
            t.tasks.update()
            .where(
                c.instance_id == instance_id,
                c.node_id == node_id,
                c.status.in_(q.OPEN_TASK_STATUSES),
            )
            .values(
                status="completed", completed_by=actor_id, completed_at=now, outcome="signalled"
            )
        )


def _open_at(instance_id: str, token_id: str, node_id: str, attempt_group: int) -> sa.Update:
    """An update of a token's open tasks at a node (one attempt group)."""
    c = t.tasks.c
    return t.tasks.update().where(
        c.instance_id == instance_id,
        c.token_id == token_id,
        c.node_id == node_id,
        c.attempt_group == attempt_group,
        c.status.in_(q.OPEN_TASK_STATUSES),
    )
