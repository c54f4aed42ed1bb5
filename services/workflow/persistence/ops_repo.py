"""The SQL behind operations: gauges computed at scrape time.

Gauges read the database because the database is the only place that knows the truth across
every process (a worker cannot tell how many instances are stuck on other machines). Each
query is an aggregate on an indexed column, cheap enough to run on every scrape.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from core.dbtypes import UTCDateTime
from services.workflow.persistence import tables as t
from services.workflow.runtime.kernel.naming import routed_queue

OPEN_INSTANCE_STATUSES = ("created", "running", "waiting", "stalled", "compensating")


class OpsSnapshot(msgspec.Struct, frozen=True, kw_only=True):
    """The database-derived gauges at one moment (label values are bounded: no instance ids)."""

    stuck: dict[int, int]  # timeout in hours -> open instances without progress for longer
    queue_depth: dict[str, int]  # broker queue (Q or Q@tenant) -> scheduled step runs
    outbox_lag_s: float  # age of the oldest due, unsent outbox row; 0 when none
    outbox_unsent: int
    dead_letters: int  # open dead letters


def _moment(value: Any, conn: AsyncConnection) -> datetime | None:
    return UTCDateTime().process_result_value(value, conn.dialect)


async def ops_snapshot(
    conn: AsyncConnection,
    now: datetime,
    timeouts_h: Iterable[int],
    pools: frozenset[str] = frozenset(),
) -> OpsSnapshot:
    i, o, d = t.instances.c, t.outbox.c, t.dead_letters.c
    stuck: dict[int, int] = {}
    for hours in timeouts_h:
        stuck[hours] = int(
            (
                await conn.execute(
                    sa.select(sa.func.count()).where(
                        i.status.in_(OPEN_INSTANCE_STATUSES),
                        i.updated_at < now - timedelta(hours=hours),
                    )
                )
            ).scalar_one()
        )
    depth = await _queue_depth(conn, pools)
    oldest, unsent = (
        await conn.execute(
            sa.select(sa.func.min(o.available_at), sa.func.count()).where(
                o.sent_at.is_(None), o.available_at <= now
            )
        )
    ).one()
    oldest_at = _moment(oldest, conn)
    letters = (
        await conn.execute(sa.select(sa.func.count()).where(d.status == "open"))
    ).scalar_one()
    return OpsSnapshot(
        stuck=stuck,
        queue_depth=depth,
        outbox_lag_s=max(0.0, (now - oldest_at).total_seconds()) if oldest_at else 0.0,
        outbox_unsent=int(unsent),
        dead_letters=int(letters),
    )


async def _queue_depth(conn: AsyncConnection, pools: frozenset[str]) -> dict[str, int]:
    """Scheduled step runs per broker queue: a pooled tenant's under ``Q@tenant``, where its
    own workers look (``naming.routed_queue``); the cases' tenants are read only with pools."""
    i, s = t.instances.c, t.step_runs.c
    count = sa.func.count().label("n")
    scheduled = s.status == "scheduled"
    if not pools:
        rows = await conn.execute(sa.select(s.queue, count).where(scheduled).group_by(s.queue))
        return {str(row.queue): int(row.n) for row in rows}
    rows = await conn.execute(
        sa.select(s.queue, i.tenant, count)
        .join_from(t.step_runs, t.instances, i.id == s.instance_id)
        .where(scheduled)
        .group_by(s.queue, i.tenant)
    )
    depth: dict[str, int] = {}
    for row in rows:
        queue = routed_queue(str(row.queue), str(row.tenant), pools)
        depth[queue] = depth.get(queue, 0) + int(row.n)
    return depth
