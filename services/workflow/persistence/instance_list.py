"""``tramita instance list``: one page of instances, newest first, with the filters a clerk or
an operator types on the command line, and the total those filters match.

Reads only, in one short connection. "Overdue" means what the search page and the API mean by
it: the instance has an open task (ready or claimed) whose due time is before ``now``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from services.workflow.persistence import tables as t
from services.workflow.persistence.access_repo import seen_by
from services.workflow.runtime.ports.access import Viewer

MAX_LIMIT = 1000
OPEN_TASK = ("ready", "claimed")


class ListedInstance(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    protocol: str
    definition_key: str
    definition_version: int
    status: str
    current_nodes: list[str]
    started_at: datetime
    overdue: bool


class InstancePage(msgspec.Struct, frozen=True, kw_only=True):
    total: int
    """How many instances the filters match (every page)."""
    limit: int
    offset: int
    instances: list[ListedInstance]


class InstanceFilter(msgspec.Struct, frozen=True, kw_only=True):
    definition_key: str | None = None
    status: str | None = None
    overdue: bool = False
    limit: int = 50
    offset: int = 0
    viewer: Viewer
    """Only the cases of the viewer's tenant this person may see (nobody: public cases only)."""


def _overdue(now: datetime) -> sa.ColumnElement[bool]:
    task = t.tasks.c
    return sa.exists().where(
        task.instance_id == t.instances.c.id,
        task.status.in_(OPEN_TASK),
        task.due_at < now,
    )


async def list_instances(
    engine: AsyncEngine, wanted: InstanceFilter, now: datetime
) -> InstancePage:
    c = t.instances.c
    where: list[Any] = []
    if wanted.definition_key is not None:
        where.append(c.definition_key == wanted.definition_key)
    if wanted.status is not None:
        where.append(c.status == wanted.status)
    if wanted.overdue:
        where.append(_overdue(now))
    where.append(seen_by(wanted.viewer, now))
    limit = max(1, min(wanted.limit, MAX_LIMIT))
    offset = max(0, wanted.offset)
    page = (
        sa.select(
            c.id,
            c.protocol,
            c.definition_key,
            c.definition_version,
            c.status,
            c.current_nodes,
            c.started_at,
            _overdue(now).label("overdue"),
        )
        .where(*where)
        .order_by(c.started_at.desc(), c.id.desc())
        .limit(limit)
        .offset(offset)
    )
    count = sa.select(sa.func.count()).select_from(t.instances).where(*where)
    async with engine.connect() as conn:
        total = (await conn.execute(count)).scalar_one()
        rows = list(await conn.execute(page))
    return InstancePage(
        total=int(total),
        limit=limit,
        offset=offset,
        instances=[
            ListedInstance(
                id=r.id,
                protocol=r.protocol,
                definition_key=r.definition_key,
                definition_version=r.definition_version,
                status=r.status,
                current_nodes=list(r.current_nodes or []),
                started_at=r.started_at,
                overdue=bool(r.overdue),
            )
            for r in rows
        ],
    )
