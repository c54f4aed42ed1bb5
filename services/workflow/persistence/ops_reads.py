"""Operators' reads for the admin pages: an instance's step runs and the stuck instances.

Part of :class:`services.workflow.persistence.search_repo.SqlApiReads` (the API read port),
kept apart so that each file stays about one thing. "Stuck" uses the same notion of progress as
the ``stuck`` gauge in :mod:`ops_repo`: an open instance whose ``updated_at`` (bumped by every
step, task, timer and signal that moves it) is older than a threshold.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from services.workflow.persistence import tables as t
from services.workflow.persistence.ops_repo import OPEN_INSTANCE_STATUSES
from services.workflow.reads.operations import StepRunView, StuckInstanceView


def _step_run(row: Any) -> StepRunView:
    return StepRunView(
        id=row.id,
        node_id=row.node_id,
        kind=row.kind,
        queue=row.queue,
        attempt_group=row.attempt_group,
        attempt=row.attempt,
        status=row.status,
        created_at=row.created_at,
        started_at=row.started_at,
        finished_at=row.finished_at,
        lease_expires_at=row.lease_expires_at,
        error=row.error,
        has_checkpoint=bool(row.has_checkpoint),
    )


def grouped_by_node(runs: list[StepRunView]) -> list[StepRunView]:
    """Runs (oldest first) regrouped: nodes in the order they first ran, and within a node by
    kind, attempt group and attempt, so that each node's retries read top to bottom."""
    first_seen: dict[str, int] = {}
    for run in runs:
        first_seen.setdefault(run.node_id, len(first_seen))
    return sorted(
        runs,
        key=lambda r: (first_seen[r.node_id], r.kind != "step", r.attempt_group, r.attempt),
    )


async def step_runs_of(conn: AsyncConnection, instance_id: str) -> list[StepRunView]:
    s = t.step_runs.c
    rows = await conn.execute(
        sa.select(
            s.id,
            s.node_id,
            s.kind,
            s.queue,
            s.attempt_group,
            s.attempt,
            s.status,
            s.created_at,
            s.started_at,
            s.finished_at,
            s.lease_expires_at,
            s.error,
            s.checkpoint.is_not(None).label("has_checkpoint"),
        )
        .where(s.instance_id == instance_id)
        .order_by(s.created_at, s.id)
    )
    return grouped_by_node([_step_run(r) for r in rows])


async def stuck_instances(
    conn: AsyncConnection, progress_before: datetime, limit: int, seen: Any = None
) -> list[StuckInstanceView]:
    """``seen``: a condition on ``workflow_instances`` (``access_repo.seen_by``) that keeps
    only the cases a viewer may see."""
    i = t.instances.c
    visible: list[Any] = [] if seen is None else [seen]
    rows = await conn.execute(
        sa.select(
            i.id,
            i.protocol,
            i.definition_key,
            i.definition_version,
            i.status,
            i.current_nodes,
            i.updated_at,
        )
        .where(i.status.in_(OPEN_INSTANCE_STATUSES), i.updated_at < progress_before, *visible)
        .order_by(i.updated_at, i.id)
        .limit(limit)
    )
    return [
        StuckInstanceView(
            id=r.id,
            protocol=r.protocol,
            definition_key=r.definition_key,
            definition_version=r.definition_version,
            status=r.status,
            current_nodes=tuple(str(n) for n in r.current_nodes or ()),
            last_progress_at=r.updated_at,
        )
        for r in rows
    ]
