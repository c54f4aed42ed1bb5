"""The inbox's SQL: filters on indexed columns, keyset pages, one statement per segment.

Absent due dates sort last (ascending) or first (descending) on both backends. Rather than an
``OR due_at IS NULL`` that stops PostgreSQL from walking ``(queue, status, due_at)`` in order,
the dated rows and the undated rows are read as two segments, each a plain index range.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from contracts.kernel import Clock
from contracts.workflow.types import TaskMulti, TaskView
from services.workflow.persistence import tables as t
from services.workflow.persistence import tables_human as h
from services.workflow.persistence.access_repo import seen_by
from services.workflow.runtime.services.inbox import InboxQuery, Keyset, QueueOption

_C = t.tasks.c


def _filters(query: InboxQuery, now: datetime | None = None) -> list[Any]:
    where: list[Any] = []
    if query.seen_by is not None:
        if now is None:
            where.append(sa.false())
        else:
            where.append(seen_by(query.seen_by, now, instance=_C.instance_id, tenant=_C.tenant))
    if query.status:
        where.append(_C.status.in_(query.status))
    if query.queue is not None:
        where.append(_C.queue == query.queue)
    if query.assignee is not None:
        where.append(_C.assignee == query.assignee)
    if query.unassigned:
        where.append(_C.assignee.is_(None))
    if query.instance_id is not None:
        where.append(_C.instance_id == query.instance_id)
    if query.protocol is not None:
        where.append(t.instances.c.protocol == query.protocol)
    if query.name is not None:
        where.append(sa.func.lower(_C.name).contains(query.name.lower(), autoescape=True))
    if query.priority_min is not None:
        where.append(_C.priority >= query.priority_min)
    if query.priority_max is not None:
        where.append(_C.priority <= query.priority_max)
    if query.due_from is not None:
        where.append(_C.due_at >= query.due_from)
    if query.due_to is not None:
        where.append(_C.due_at < query.due_to)
    if query.created_from is not None:
        where.append(_C.created_at >= query.created_from)
    if query.created_to is not None:
        where.append(_C.created_at < query.created_to)
    if query.queues is not None:
        where.append(_C.queue.in_(sorted(query.queues)))
    if query.visible_to is not None:
        mine = sa.select(h.queue_members.c.queue).where(
            h.queue_members.c.user_id == query.visible_to
        )
        where.append(sa.or_(_C.queue.in_(mine), _C.assignee == query.visible_to))
    return where


def _after(col: Any, desc: bool, value: Any, last_id: str) -> Any:
    """Rows strictly after ``(value, last_id)`` within the dated segment."""
    if desc:
        return sa.and_(col <= value, sa.or_(col < value, _C.id < last_id))
    return sa.and_(col >= value, sa.or_(col > value, _C.id > last_id))


class SqlInboxQuery:
    def __init__(self, engine: AsyncEngine, clock: Clock | None = None) -> None:
        self._engine = engine
        self._clock = clock
        """Judges grants' expiry for ``seen_by`` (without it such a query matches nothing)."""

    def _now(self) -> datetime | None:
        return None if self._clock is None else self._clock.now()

    async def rows(self, query: InboxQuery, after: Keyset | None, limit: int) -> list[TaskView]:
        desc = query.sort.startswith("-")
        col = getattr(_C, query.sort.lstrip("-"))
        base = _filters(query, self._now())
        segments: list[tuple[list[Any], list[Any]]] = []
        dated_order = [col.desc(), _C.id.desc()] if desc else [col.asc(), _C.id.asc()]
        undated_order = [_C.id.desc()] if desc else [_C.id.asc()]
        if query.sort.lstrip("-") != "due_at":
            cond = [] if after is None else [_after(col, desc, after.value, after.id)]
            segments.append((cond, dated_order))
        else:
            dated: list[Any] = [col.is_not(None)]
            undated: list[Any] = [col.is_(None)]
            resume_id = (
                [] if after is None else [(_C.id < after.id) if desc else (_C.id > after.id)]
            )
            if after is None:
                parts = [(dated, dated_order), (undated, undated_order)]
            elif after.value is None:  # inside the undated segment
                parts = [(undated + resume_id, undated_order)]
                if desc:
                    parts.append((dated, dated_order))
            else:
                parts = [([*dated, _after(col, desc, after.value, after.id)], dated_order)]
                if not desc:
                    parts.append((undated, undated_order))
            if desc and (after is None):
                parts.reverse()
            segments.extend(parts)
        found: list[TaskView] = []
        async with self._engine.connect() as conn:
            for cond, order in segments:
                if len(found) >= limit:
                    break
                statement = (
                    sa.select(t.tasks, t.instances.c.protocol)
                    .join(t.instances, t.instances.c.id == _C.instance_id)
                    .where(*base, *cond)
                    .order_by(*order)
                    .limit(limit - len(found))
                )
                for row in await conn.execute(statement):
                    found.append(_view(row))
        return found

    async def count(self, query: InboxQuery, cap: int) -> int:
        """Counts at most ``cap`` rows: a LIMIT inside, so a huge queue costs ``cap`` rows. Only
        a protocol filter needs the cases joined (the tenant is the task's own column)."""
        matching = sa.select(_C.id)
        if query.protocol is not None:
            matching = matching.join(t.instances, t.instances.c.id == _C.instance_id)
        counted = matching.where(*_filters(query, self._now())).limit(cap).subquery()
        async with self._engine.connect() as conn:
            found = await conn.scalar(sa.select(sa.func.count()).select_from(counted))
        return int(found or 0)

    async def queues(self, member: str | None) -> list[QueueOption]:
        q = h.queues.c
        statement = sa.select(q.key, q.name).where(q.active.is_(True)).order_by(q.name, q.key)
        if member is not None:
            statement = statement.join(h.queue_members, h.queue_members.c.queue == q.key).where(
                h.queue_members.c.user_id == member
            )
        async with self._engine.connect() as conn:
            rows = await conn.execute(statement)
            return [QueueOption(key=r.key, name=r.name) for r in rows]

    async def members(self, queue: str) -> list[str]:
        m = h.queue_members.c
        async with self._engine.connect() as conn:
            rows = await conn.execute(sa.select(m.user_id).where(m.queue == queue))
            return [str(r.user_id) for r in rows]

    async def views(self, task_ids: list[str]) -> list[TaskView]:
        statement = (
            sa.select(t.tasks, t.instances.c.protocol)
            .join(t.instances, t.instances.c.id == _C.instance_id)
            .where(_C.id.in_(sorted(set(task_ids))))
        )
        async with self._engine.connect() as conn:
            return [_view(r) for r in await conn.execute(statement)]


def _view(row: Any) -> TaskView:
    return TaskView(
        id=str(row.id),
        instance_id=str(row.instance_id),
        protocol=row.protocol,
        node_id=row.node_id,
        name=row.name,
        queue=row.queue,
        assignee=row.assignee,
        status=row.status,
        form=row.form,
        outcomes=tuple(row.outcomes),
        priority=row.priority,
        created_at=row.created_at,
        due_at=row.due_at,
        claimed_at=row.claimed_at,
        completed_at=row.completed_at,
        multi=None if not row.multi else msgspec.convert(row.multi, TaskMulti),
    )
