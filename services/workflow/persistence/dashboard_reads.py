"""The dashboard's read queries (``services.workflow.runtime.kernel.dashboard.DashboardReads``).

Reads only, in short connections of their own (like ``search_repo.py``). Counts are grouped in
SQL; answer durations are read for the tasks completed in the window and their median taken in
Python, which both backends then agree on (SQLite has no percentile function). Whether a
version is in sync is derived from the stored bytes: their SHA-256 against the stored checksum.
Given a viewer, the tasks and instances of cases hidden from them are left out in SQL with the
one visibility rule (``access_repo.seen_by``), so no count reveals a hidden case.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from contracts.kernel import Clock
from services.workflow.persistence import tables as t
from services.workflow.persistence.access_repo import definitions_of, seen_by
from services.workflow.runtime.kernel.dashboard import (
    GroupBy,
    VersionState,
    WorkloadRow,
    WorkloadWindow,
    median_seconds,
)
from services.workflow.runtime.ports.access import Viewer

_OPEN = ("ready", "claimed")


def _as_int(value: Any) -> int:
    return int(value or 0)


class SqlDashboardReads:
    def __init__(self, engine: AsyncEngine, clock: Clock | None = None) -> None:
        self._engine = engine
        self._clock = clock
        """Judges grants' expiry in the versions' counts for a viewer (required for one)."""

    async def _all(self, query: Any) -> list[Any]:
        async with self._engine.connect() as conn:
            return list(await conn.execute(query))

    @staticmethod
    def _group(by: GroupBy) -> tuple[Any, Any]:
        """(the grouping column, the FROM clause it needs)."""
        task = t.tasks.c
        if by == "queue":
            return sa.func.coalesce(task.queue, ""), t.tasks
        joined = t.tasks.join(t.instances, t.instances.c.id == task.instance_id)
        return t.instances.c.definition_key, joined

    async def workload(
        self,
        by: GroupBy,
        window: WorkloadWindow,
        queues: frozenset[str] | None = None,
        *,
        viewer: Viewer | None = None,
    ) -> list[WorkloadRow]:
        task = t.tasks.c
        key, source = self._group(by)
        scoped: list[Any] = [] if queues is None else [task.queue.in_(sorted(queues))]
        if viewer is not None:
            scoped.append(
                seen_by(viewer, window.now, instance=task.instance_id, tenant=task.tenant)
            )
        is_open = sa.and_(task.status.in_(_OPEN), *scoped)
        counts = (
            sa.select(
                key.label("key"),
                sa.func.count().label("open"),
                sa.func.sum(
                    sa.case(
                        (sa.and_(task.due_at >= window.now, task.due_at < window.week_end), 1),
                        else_=0,
                    )
                ).label("due_this_week"),
                sa.func.sum(sa.case((task.due_at < window.now, 1), else_=0)).label("overdue"),
            )
            .select_from(source)
            .where(is_open)
            .group_by(key)
        )
        answered = (
            sa.select(key.label("key"), task.created_at, task.completed_at)
            .select_from(source)
            .where(
                *scoped,
                task.status == "completed",
                task.completed_at.is_not(None),
                task.completed_at >= window.answered_since,
                task.completed_at <= window.now,
            )
        )
        rows: dict[str, dict[str, Any]] = defaultdict(dict)
        for r in await self._all(counts):
            rows[r.key].update(
                open=_as_int(r.open),
                due_this_week=_as_int(r.due_this_week),
                overdue=_as_int(r.overdue),
            )
        durations: dict[str, list[float]] = defaultdict(list)
        for r in await self._all(answered):
            durations[r.key].append((r.completed_at - r.created_at).total_seconds())
            rows.setdefault(r.key, {})  # a group with answers and no open task still shows
        return [
            WorkloadRow(
                key=k,
                open=rows[k].get("open", 0),
                due_this_week=rows[k].get("due_this_week", 0),
                overdue=rows[k].get("overdue", 0),
                answered=len(durations[k]),
                median_answer_s=median_seconds(durations[k]),
            )
            for k in sorted(rows)
        ]

    async def versions(self, *, viewer: Viewer | None = None) -> list[VersionState]:
        v, d, i = t.versions.c, t.definitions.c, t.instances.c
        visible: list[Any] = []
        if viewer is not None:
            if self._clock is None:
                raise RuntimeError("counts for a viewer need the reads' clock")
            visible.append(seen_by(viewer, self._clock.now()))
        docs = await self._all(
            sa.select(d.key, d.name, v.id, v.version, v.status, v.checksum, v.schema)
            .join(t.definitions, d.id == v.definition_id)
            .where(definitions_of(None if viewer is None else viewer.tenant))
            .order_by(d.key, v.version)
        )
        counts: dict[str, dict[str, int]] = defaultdict(dict)
        for r in await self._all(
            sa.select(i.version_id, i.status, sa.func.count().label("n"))
            .where(*visible)
            .group_by(i.version_id, i.status)
        ):
            counts[r.version_id][r.status] = _as_int(r.n)
        return [
            VersionState(
                definition_key=r.key,
                definition_name=r.name,
                version=r.version,
                status=r.status,
                checksum=r.checksum,
                in_sync=hashlib.sha256(r.schema.encode()).hexdigest() == r.checksum,
                instances=dict(sorted(counts[r.id].items())),
            )
            for r in docs
        ]
