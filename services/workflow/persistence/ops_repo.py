"""The SQL behind operations: gauges computed at scrape time, and the LGPD purge and export.

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
from services.workflow.persistence.tables_privacy import purges

OPEN_INSTANCE_STATUSES = ("created", "running", "waiting", "stalled", "compensating")


class OpsSnapshot(msgspec.Struct, frozen=True, kw_only=True):
    """The database-derived gauges at one moment (label values are bounded: no instance ids)."""

    stuck: dict[int, int]  # timeout in hours -> open instances without progress for longer
    queue_depth: dict[str, int]  # queue -> scheduled (not yet running) step runs
    outbox_lag_s: float  # age of the oldest due, unsent outbox row; 0 when none
    outbox_unsent: int
    dead_letters: int  # open dead letters


def _plain(row: Any) -> dict[str, Any]:
    """A row as a dict with plain ``str`` keys (SQLAlchemy hands ``quoted_name`` subclasses,
    which msgspec refuses as keys)."""
    return {str(k): v for k, v in row._mapping.items()}


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


# --- LGPD: retention purge and subject export --------------------------------------------------


class ClosedInstance(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    definition_key: str
    protocol: str
    status: str
    ended_at: datetime


async def closed_unpurged(
    conn: AsyncConnection, version_id: str, ended_before: datetime, limit: int
) -> list[ClosedInstance]:
    """Closed instances of one version, ended before ``ended_before``, not yet purged.

    By version, not definition: ``retention`` and ``personal`` belong to the version an
    instance was born with."""
    i = t.instances.c
    already = sa.select(purges.c.instance_id).where(purges.c.instance_id == i.id).exists()
    rows = await conn.execute(
        sa.select(i.id, i.definition_key, i.protocol, i.status, i.ended_at)
        .where(
            i.version_id == version_id,
            i.ended_at.is_not(None),
            i.ended_at < ended_before,
            ~already,
        )
        .order_by(i.ended_at)
        .limit(limit)
    )
    return [msgspec.convert(_plain(r), ClosedInstance) for r in rows]


async def lock_instance_row(conn: AsyncConnection, instance_id: str) -> dict[str, Any] | None:
    query = sa.select(t.instances).where(t.instances.c.id == instance_id)
    if conn.dialect.name == "postgresql":
        query = query.with_for_update()
    row = (await conn.execute(query)).first()
    return None if row is None else _plain(row)


async def instance_rows(conn: AsyncConnection, instance_id: str) -> dict[str, list[dict[str, Any]]]:
    """The JSON-bearing rows of one instance that may hold personal values."""
    found: dict[str, list[dict[str, Any]]] = {}
    for name, table, cols in _JSON_COLUMNS:
        query = sa.select(table.c.id, *(table.c[c] for c in cols)).where(
            table.c.instance_id == instance_id
        )
        found[name] = [_plain(r) for r in await conn.execute(query)]
    return found


_JSON_COLUMNS: tuple[tuple[str, sa.Table, tuple[str, ...]], ...] = (
    ("history", t.history, ("data",)),
    ("step_runs", t.step_runs, ("input", "output", "error", "checkpoint")),
    ("tasks", t.tasks, ("data",)),
    ("dead_letters", t.dead_letters, ("payload", "last_error")),
)
_TABLES = {name: table for name, table, _ in _JSON_COLUMNS}


async def rewrite_rows(
    conn: AsyncConnection, name: str, row_id: Any, values: dict[str, Any]
) -> None:
    table = _TABLES[name]
    await conn.execute(table.update().where(table.c.id == row_id).values(**values))


async def rewrite_instance(
    conn: AsyncConnection, instance_id: str, *, context: dict[str, Any], state: dict[str, Any]
) -> None:
    """Replace context and state without touching ``row_version``: a purge is not a step."""
    await conn.execute(
        t.instances.update()
        .where(t.instances.c.id == instance_id)
        .values(context=context, state=state)
    )


async def mark_purged(conn: AsyncConnection, instance_id: str, now: datetime, keys: int) -> None:
    await conn.execute(purges.insert().values(instance_id=instance_id, purged_at=now, keys=keys))


async def instances_of_versions(
    conn: AsyncConnection, version_ids: Iterable[str], *, author_id: str | None = None
) -> list[dict[str, Any]]:
    """Instances of the given versions (or authored by ``author_id``), oldest first.

    The subject export filters their context in Python: personal values are not indexed (an
    index on them would itself be a copy of personal data to purge).
    """
    i = t.instances.c
    condition: sa.ColumnElement[bool] = i.version_id.in_(list(version_ids))
    if author_id is not None:
        condition = sa.or_(condition, i.author_id == author_id)
    rows = await conn.execute(sa.select(t.instances).where(condition).order_by(i.started_at))
    return [_plain(r) for r in rows]


async def history_of(conn: AsyncConnection, instance_id: str) -> list[dict[str, Any]]:
    h = t.history.c
    rows = await conn.execute(
        sa.select(h.seq, h.at, h.event, h.from_node, h.to_node)
        .where(h.instance_id == instance_id)
        .order_by(h.seq)
    )
    return [_plain(r) for r in rows]


async def purged_at(conn: AsyncConnection, instance_id: str) -> datetime | None:
    value = (
        await conn.execute(sa.select(purges.c.purged_at).where(purges.c.instance_id == instance_id))
    ).scalar()
    return _moment(value, conn)
