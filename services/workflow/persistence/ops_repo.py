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

OPEN_INSTANCE_STATUSES = ("created", "running", "waiting", "stalled", "compensating")


class OpsSnapshot(msgspec.Struct, frozen=True, kw_only=True):
    """The database-derived gauges at one moment (label values are bounded: no instance ids)."""

    stuck: dict[int, int]  # timeout in hours -> open instances without progress for longer
    queue_depth: dict[str, int]  # queue -> scheduled (not yet running) step runs
    outbox_lag_s: float  # age of the oldest due, unsent outbox row; 0 when none
    outbox_unsent: int
    dead_letters: int  # open dead letters


def _moment(value: Any, conn: AsyncConnection) -> datetime | None:
    return UTCDateTime().process_result_value(value, conn.dialect)


async def ops_snapshot(
    conn: AsyncConnection, now: datetime, timeouts_h: Iterable[int]
) -> OpsSnapshot:
    i, s, o, d = t.instances.c, t.step_runs.c, t.outbox.c, t.dead_letters.c
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
    depth = {
        str(row.queue): int(row.n)
        for row in await conn.execute(
            sa.select(s.queue, sa.func.count().label("n"))
            .where(s.status == "scheduled")
            .group_by(s.queue)
        )
    }
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
