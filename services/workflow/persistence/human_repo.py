"""SQL for human work: queues and members, form versions, snapshots, action idempotency.

It is the unit of work's ``uow.human``, on that transaction's connection, so what it writes
commits or rolls back with the task change it belongs to. It implements
``runtime.ports.human.HumanStore`` and returns that module's Structs, never rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from services.workflow.persistence import tables as t
from services.workflow.persistence import tables_human as h
from services.workflow.persistence.tables_documents import documents
from services.workflow.persistence.write_buffer import WriteBuffer
from services.workflow.runtime.ports.human import ActionRecord, FormRecord, QueueRecord


class SqlHumanRepo:
    def __init__(self, db: WriteBuffer) -> None:
        self._db = db

    @property
    def _conn(self) -> AsyncConnection:
        """The unit of work's connection (it sends held-back writes first)."""
        return self._db.conn

    # --- queues -------------------------------------------------------------------------------

    async def queue(self, key: str) -> QueueRecord | None:
        row = (await self._conn.execute(sa.select(h.queues).where(h.queues.c.key == key))).first()
        if row is None:
            return None
        return QueueRecord(key=row.key, name=row.name, active=row.active, permission=row.permission)

    async def is_member(self, queue: str, user_id: str) -> bool:
        m = h.queue_members.c
        row = (
            await self._conn.execute(
                sa.select(m.user_id).where(m.queue == queue, m.user_id == user_id)
            )
        ).first()
        return row is not None

    async def memberships(self, user_id: str) -> list[str]:
        m = h.queue_members.c
        rows = await self._conn.execute(
            sa.select(m.queue).where(m.user_id == user_id).order_by(m.queue)
        )
        return [r.queue for r in rows]

    async def members(self, queue: str) -> list[str]:
        m = h.queue_members.c
        rows = await self._conn.execute(
            sa.select(m.user_id).where(m.queue == queue).order_by(m.user_id)
        )
        return [r.user_id for r in rows]

    async def save_queue(self, queue: QueueRecord, now: datetime) -> bool:
        """Insert or update a queue; true when something changed."""
        found = await self.queue(queue.key)
        if found == queue:
            return False
        values = {
            "name": queue.name,
            "active": queue.active,
            "permission": queue.permission,
            "updated_at": now,
        }
        if found is None:
            await self._conn.execute(h.queues.insert().values(key=queue.key, **values))
        else:
            await self._conn.execute(
                h.queues.update().where(h.queues.c.key == queue.key).values(**values)
            )
        return True

    async def add_members(self, queue: str, user_ids: Iterable[str], now: datetime) -> list[str]:
        """Add the users not yet members; returns those added."""
        present = set(await self.members(queue))
        new = sorted(set(user_ids) - present)
        if new:
            await self._conn.execute(
                h.queue_members.insert(),
                [{"queue": queue, "user_id": u, "added_at": now} for u in new],
            )
        return new

    async def remove_member(self, queue: str, user_id: str) -> bool:
        m = h.queue_members.c
        result = await self._conn.execute(
            h.queue_members.delete().where(m.queue == queue, m.user_id == user_id)
        )
        return bool(result.rowcount)

    # --- forms --------------------------------------------------------------------------------

    def _form(self, row: Any) -> FormRecord:
        return FormRecord(
            id=row.id,
            key=row.key,
            version=row.version,
            schema=row.schema,
            checksum=row.checksum,
            status=row.status,
            published_at=row.published_at,
        )

    async def form(self, key: str, version: int) -> FormRecord | None:
        row = (
            await self._conn.execute(
                sa.select(h.forms).where(h.forms.c.key == key, h.forms.c.version == version)
            )
        ).first()
        return None if row is None else self._form(row)

    async def latest_form(self, key: str, at: datetime | None = None) -> FormRecord | None:
        """The highest published version of ``key`` (published no later than ``at``)."""
        query = sa.select(h.forms).where(h.forms.c.key == key, h.forms.c.status == "published")
        if at is not None:
            query = query.where(h.forms.c.published_at <= at)
        row = (await self._conn.execute(query.order_by(h.forms.c.version.desc()).limit(1))).first()
        return None if row is None else self._form(row)

    async def add_form(self, record: FormRecord, actor_id: str) -> None:
        await self._conn.execute(
            h.forms.insert().values(
                id=record.id,
                key=record.key,
                version=record.version,
                schema=record.schema,
                checksum=record.checksum,
                status=record.status,
                published_at=record.published_at,
                published_by=actor_id,
            )
        )

    # --- submissions --------------------------------------------------------------------------

    async def add_submission(
        self,
        *,
        submission_id: str,
        task_id: str,
        instance_id: str,
        form_key: str,
        form_version: int,
        form_checksum: str,
        snapshot: bytes,
        actor_id: str | None,
        submitted_at: datetime,
    ) -> None:
        await self._conn.execute(
            h.form_submissions.insert().values(
                id=submission_id,
                task_id=task_id,
                instance_id=instance_id,
                form_key=form_key,
                form_version=form_version,
                form_checksum=form_checksum,
                snapshot=snapshot.decode(),
                actor_id=actor_id,
                submitted_at=submitted_at,
            )
        )

    async def submissions(self, task_id: str) -> list[bytes]:
        """The task's stored snapshots (encoded), oldest first."""
        s = h.form_submissions.c
        rows = await self._conn.execute(
            sa.select(s.snapshot).where(s.task_id == task_id).order_by(s.submitted_at, s.id)
        )
        return [r.snapshot.encode() for r in rows]

    # --- idempotency --------------------------------------------------------------------------

    async def action(self, actor_id: str, key: str) -> ActionRecord | None:
        a = h.task_actions.c
        row = (
            await self._conn.execute(
                sa.select(h.task_actions).where(a.actor_id == actor_id, a.idempotency_key == key)
            )
        ).first()
        if row is None:
            return None
        return ActionRecord(
            action=row.action,
            task_id=row.task_id,
            fingerprint=row.fingerprint,
            response=dict(row.response),
        )

    async def add_action(
        self, actor_id: str, key: str, record: ActionRecord, now: datetime
    ) -> None:
        await self._conn.execute(
            h.task_actions.insert().values(
                actor_id=actor_id,
                idempotency_key=key,
                action=record.action,
                task_id=record.task_id,
                fingerprint=record.fingerprint,
                response=record.response,
                created_at=now,
            )
        )

    async def task_instance_id(self, task_id: str) -> str | None:
        row = (
            await self._conn.execute(
                sa.select(t.tasks.c.instance_id).where(t.tasks.c.id == task_id)
            )
        ).first()
        return None if row is None else str(row.instance_id)

    async def current_document_types(self, instance_id: str) -> frozenset[str]:
        d = documents.c
        query = sa.select(d.type_key).where(d.instance_id == instance_id, d.status == "current")
        return frozenset((await self._conn.execute(query)).scalars())
