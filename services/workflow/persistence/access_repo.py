"""SQL for access levels (``runtime.ports.access.AccessStore``): ``uow.access``, and the one
visibility rule as a SQL condition, which the single-case check, the search and the inbox all
filter with, so a list can never show a case the case's own page would refuse."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from services.workflow.persistence import tables as t
from services.workflow.persistence import tables_documents as d
from services.workflow.persistence import tables_human as h
from services.workflow.persistence.tables_access import access, access_grants
from services.workflow.persistence.write_buffer import WriteBuffer
from services.workflow.runtime.ports.access import (
    LEVELS,
    AccessRecord,
    GrantRecord,
    Level,
    Viewer,
)


def _protected(iid: Any) -> Any:
    a = access.alias("acl_protected").c
    return sa.exists().where(a.instance_id == iid, a.level != "public")


def _granted(iid: Any, user_id: str, now: datetime) -> Any:
    """An active grant on the case names the person."""
    g = access_grants.alias("acl_grant").c
    return sa.exists().where(
        g.instance_id == iid,
        g.user_id == user_id,
        g.revoked_at.is_(None),
        sa.or_(g.expires_at.is_(None), g.expires_at > now),
    )


def _restricted_ok(iid: Any, user_id: str, *, classifier: bool) -> Any:
    """Whoever may see what is restricted on the case: a classifier, or a person involved in
    it (started it, holds or completed one of its tasks, or is a member of one of its tasks'
    queues)."""
    if classifier:
        return sa.true()
    # Aliases: the outer query may read the same tables (the inbox reads tasks), and a
    # subquery on them would silently correlate to the outer row instead of its own.
    task = t.tasks.alias("acl_task").c
    case = t.instances.alias("acl_case").c
    queues = sa.select(h.queue_members.c.queue).where(h.queue_members.c.user_id == user_id)
    return sa.or_(
        sa.exists().where(case.id == iid, case.author_id == user_id),
        sa.exists().where(
            task.instance_id == iid,
            sa.or_(task.assignee == user_id, task.completed_by == user_id, task.queue.in_(queues)),
        ),
    )


def visible_to(user_id: str, *, classifier: bool, now: datetime, instance: Any = None) -> Any:
    """The condition on ``workflow_instances`` (or ``instance``, its id column) that holds when
    ``user_id`` may see the case: it is public; or an active grant names the person; or it is
    restricted and the person classifies cases or is involved in it (started it, holds or
    completed one of its tasks, or is a member of the queue of one of its tasks)."""
    iid = t.instances.c.id if instance is None else instance
    a = access.alias("acl_level").c
    hidden_level = sa.select(a.level).where(a.instance_id == iid).scalar_subquery()
    return sa.or_(
        ~_protected(iid),
        _granted(iid, user_id, now),
        sa.and_(hidden_level == "restricted", _restricted_ok(iid, user_id, classifier=classifier)),
    )


def in_tenant(tenant: str, instance: Any = None, column: Any = None) -> Any:
    """The case belongs to ``tenant``: a case of another tenant does not exist for the caller.
    ``instance`` is an instance id column of another table (a task's, a document's);
    ``column``, that table's own copy of its case's tenant (``workflow_tasks.tenant``), which
    is compared instead of looking the case up."""
    if column is not None:
        return column == tenant
    if instance is None:
        return t.instances.c.tenant == tenant
    case = t.instances.alias("acl_tenant").c
    return sa.exists().where(case.id == instance, case.tenant == tenant)


def seen_by(viewer: Viewer, now: datetime, instance: Any = None, tenant: Any = None) -> Any:
    """The one rule as SQL: the case is of the viewer's tenant (any, for a viewer of every
    tenant) and :func:`visible_to` them; nobody signed in (``user_id`` ``None``) sees public
    cases only. ``tenant`` is the outer row's copy of its case's tenant, if it has one (a
    task's): the tenant is then read from the row, the access level still from the case."""
    if viewer.user_id is None:
        sight = ~_protected(t.instances.c.id if instance is None else instance)
    else:
        sight = visible_to(viewer.user_id, classifier=viewer.classifier, now=now, instance=instance)
    if viewer.tenant is None:  # a platform administrator acting for every tenant
        return sight
    return sa.and_(in_tenant(viewer.tenant, instance, tenant), sight)


def definitions_of(tenant: str | None) -> Any:
    """The definitions a person or case acting for ``tenant`` sees and runs, as SQL: the
    deployment's (``tenant`` NULL, shared by every tenant) and the tenant's own; every one for
    ``None`` (a platform administrator acting for every tenant, an operator's command). The
    engine's starts check the same (``runtime.services.publishing.owned_by``)."""
    owner = t.definitions.c.tenant
    if tenant is None:
        return sa.true()
    return sa.or_(owner.is_(None), owner == tenant)


def _grant(row: Any) -> GrantRecord:
    return GrantRecord(
        id=row.id,
        instance_id=row.instance_id,
        user_id=row.user_id,
        granted_by=row.granted_by,
        granted_at=row.granted_at,
        expires_at=row.expires_at,
        revoked_at=row.revoked_at,
        revoked_by=row.revoked_by,
    )


class SqlAccessRepo:
    def __init__(self, db: WriteBuffer) -> None:
        self._db = db

    @property
    def _conn(self) -> AsyncConnection:
        """The unit of work's connection (it sends held-back writes first)."""
        return self._db.conn

    async def level_of(self, instance_id: str) -> AccessRecord | None:
        row = (
            await self._conn.execute(sa.select(access).where(access.c.instance_id == instance_id))
        ).first()
        if row is None:
            return None
        return AccessRecord(
            instance_id=row.instance_id,
            level=row.level,
            ground=row.ground,
            changed_at=row.changed_at,
            changed_by=row.changed_by,
        )

    async def set_level(self, record: AccessRecord) -> None:
        values = {
            "level": record.level,
            "ground": record.ground,
            "changed_at": record.changed_at,
            "changed_by": record.changed_by,
        }
        done = await self._conn.execute(
            access.update().where(access.c.instance_id == record.instance_id).values(**values)
        )
        if not done.rowcount:
            await self._conn.execute(
                access.insert().values(instance_id=record.instance_id, **values)
            )

    async def visible(self, instance_id: str, viewer: Viewer, now: datetime) -> bool:
        i = t.instances.c
        query = sa.select(i.id).where(i.id == instance_id, seen_by(viewer, now))
        return (await self._conn.execute(query)).first() is not None

    async def owner(self, kind: str, object_id: str) -> str | None:
        table = t.tasks if kind == "task" else d.documents
        row = (
            await self._conn.execute(sa.select(table.c.instance_id).where(table.c.id == object_id))
        ).first()
        return None if row is None else str(row.instance_id)

    async def clearance(
        self, instance_id: str, user_id: str, *, classifier: bool, now: datetime
    ) -> frozenset[Level]:
        """The levels of the case's documents the person may see: the rule of
        :func:`visible_to` (the same two conditions) applied to a document's own level."""
        query = sa.select(
            _granted(instance_id, user_id, now).label("granted"),
            _restricted_ok(instance_id, user_id, classifier=classifier).label("restricted"),
        )
        row = (await self._conn.execute(query)).one()
        if row.granted:
            return frozenset(LEVELS)
        return frozenset(("public", "restricted") if row.restricted else ("public",))

    async def document(self, document_id: str) -> tuple[str, Level] | None:
        c = d.documents.c
        query = sa.select(c.instance_id, c.level).where(c.id == document_id)
        row = (await self._conn.execute(query)).first()
        return None if row is None else (str(row.instance_id), row.level)

    async def set_document_level(self, document_id: str, level: Level, ground: str | None) -> None:
        c = d.documents.c
        await self._conn.execute(
            d.documents.update().where(c.id == document_id).values(level=level, ground=ground)
        )

    async def grants(self, instance_id: str) -> list[GrantRecord]:
        g = access_grants.c
        rows = await self._conn.execute(
            sa.select(access_grants).where(g.instance_id == instance_id).order_by(g.id)
        )
        return [_grant(r) for r in rows]

    async def add_grant(self, grant: GrantRecord) -> None:
        await self._conn.execute(
            access_grants.insert().values(
                id=grant.id,
                instance_id=grant.instance_id,
                user_id=grant.user_id,
                granted_by=grant.granted_by,
                granted_at=grant.granted_at,
                expires_at=grant.expires_at,
            )
        )

    async def revoke(self, grant_id: str, by: str | None, now: datetime) -> bool:
        g = access_grants.c
        done = await self._conn.execute(
            access_grants.update()
            .where(g.id == grant_id, g.revoked_at.is_(None))
            .values(revoked_at=now, revoked_by=by)
        )
        return bool(done.rowcount)
