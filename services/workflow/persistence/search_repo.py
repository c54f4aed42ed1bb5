"""The HTTP API's read queries (``services.workflow.reads.api_reads.ApiReads``) on SQLAlchemy Core.

Reads only, each in a short connection of its own: nothing here changes state, so there is no
unit of work to join. Context-field filters use the JSON operators both backends share
(``->>`` on PostgreSQL JSONB, ``json_extract`` on SQLite) and compare as text.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from contracts.kernel import Actor, Clock
from contracts.workflow.types import TERMINAL_STATUSES, SubjectRef
from core.tables import audit_log
from services.workflow.calendar.model import DeadlineEvent, Resumption, Suspension
from services.workflow.persistence import ops_reads
from services.workflow.persistence import tables as t
from services.workflow.persistence import tables_deadlines as td
from services.workflow.persistence import tables_human as h
from services.workflow.persistence.access_repo import definitions_of, seen_by
from services.workflow.reads.operations import (
    AuditView,
    DeadLetterView,
    StepRunView,
    StuckInstanceView,
    SubmissionView,
)
from services.workflow.reads.public import PublicSource
from services.workflow.reads.search import (
    MAX_PAGE,
    InstanceQuery,
    InstanceSummary,
    LinkedInstance,
)
from services.workflow.reads.versions import VersionDocument, VersionSummary
from services.workflow.runtime.ports.access import Viewer

_SUMMARY_COLUMNS = (
    t.instances.c.id,
    t.instances.c.protocol,
    t.instances.c.definition_key,
    t.instances.c.definition_version,
    t.instances.c.status,
    t.instances.c.subject_type,
    t.instances.c.subject_id,
    t.instances.c.business_key,
    t.instances.c.started_at,
    t.instances.c.updated_at,
    t.instances.c.ended_at,
)


def _summary(row: Any) -> InstanceSummary:
    return InstanceSummary(
        id=row.id,
        protocol=row.protocol,
        definition_key=row.definition_key,
        definition_version=row.definition_version,
        status=row.status,
        subject=SubjectRef(type=row.subject_type, id=row.subject_id)
        if row.subject_type and row.subject_id
        else None,
        business_key=row.business_key,
        started_at=row.started_at,
        updated_at=row.updated_at,
        ended_at=row.ended_at,
    )


def _linked_query(*where: Any) -> sa.Select[Any]:
    """Instances as links (:class:`LinkedInstance`), with the name of the definition of the
    version they pin: an embedded sub-process's child (``definition_key`` ``<key>.<node id>``,
    which no definition row carries) is named by the definition that holds it."""
    c, v, d = t.instances.c, t.versions.c, t.definitions.c
    return (
        sa.select(
            c.id,
            c.protocol,
            c.definition_key,
            d.name.label("definition_name"),
            c.status,
            c.started_at,
        )
        .join_from(t.instances, t.versions, v.id == c.version_id)
        .join(t.definitions, d.id == v.definition_id)
        .where(*where)
    )


def _letter(row: Any) -> DeadLetterView:
    return DeadLetterView(
        id=row.id,
        instance_id=row.instance_id,
        node_id=row.node_id,
        kind=row.kind,
        attempt_group=row.attempt_group,
        reason=row.reason,
        attempts=row.attempts,
        status=row.status,
        created_at=row.created_at,
        resolved_at=row.resolved_at,
        last_error=row.last_error,
    )


class SqlApiReads:
    def __init__(
        self, engine: AsyncEngine, clock: Clock | None = None, *, replica: AsyncEngine | None = None
    ) -> None:
        self._engine = engine
        self._clock = clock
        """Judges grants' expiry in a search filtered for a viewer (required for one)."""
        self._replica = replica or engine
        """Where the search runs: a PostgreSQL replica (``TRAMITA_READ_DATABASE_URL``) may lag
        the database by its replication delay; every other read here sees the last commit."""

    async def _all(self, query: sa.Select[Any], *, replica: bool = False) -> list[Any]:
        async with (self._replica if replica else self._engine).connect() as conn:
            return list(await conn.execute(query))

    async def search(self, query: InstanceQuery) -> list[InstanceSummary]:
        c = t.instances.c
        where: list[Any] = []
        for column, value in (
            (c.definition_key, query.definition_key),
            (c.status, query.status),
            (c.subject_type, query.subject_type),
            (c.subject_id, query.subject_id),
            (c.protocol, query.protocol),
            (c.business_key, query.business_key),
        ):
            if value is not None:
                where.append(column == value)
        if query.started_from is not None:
            where.append(c.started_at >= query.started_from)
        if query.started_to is not None:
            where.append(c.started_at < query.started_to)
        for key, value in sorted(query.fields.items()):
            where.append(c.context[key].as_string() == value)
        task = t.tasks.c
        open_task: list[Any] = []
        if query.node is not None:
            open_task.append(task.node_id == query.node)
        if query.queue is not None:
            open_task.append(task.queue == query.queue)
        if query.overdue_at is not None:
            open_task.append(task.due_at < query.overdue_at)
        if open_task:
            where.append(
                sa.exists().where(
                    task.instance_id == c.id, task.status.in_(("ready", "claimed")), *open_task
                )
            )
        if query.before is not None:
            where.append(c.id < query.before)
        if query.viewer is not None:
            where.append(self._visible(query.viewer))
        limit = max(1, min(query.limit, MAX_PAGE))
        rows = await self._all(
            sa.select(*_SUMMARY_COLUMNS).where(*where).order_by(c.id.desc()).limit(limit),
            replica=True,
        )
        return [_summary(r) for r in rows]

    def _visible(self, viewer: Viewer, instance: Any = None) -> Any:
        """:func:`seen_by` on ``workflow_instances`` (or ``instance``, an instance id column)."""
        if self._clock is None:
            raise RuntimeError("a read filtered for a viewer needs the reads' clock")
        return seen_by(viewer, self._clock.now(), instance)

    async def open_instances_for(
        self, *, business_key: str | None, protocol: str | None, viewer: Viewer | None = None
    ) -> list[InstanceSummary]:
        c = t.instances.c
        where: list[Any] = [c.status.not_in(sorted(TERMINAL_STATUSES))]
        if viewer is not None:
            where.append(self._visible(viewer))
        if business_key is not None:
            where.append(c.business_key == business_key)
        if protocol is not None:
            where.append(c.protocol == protocol)
        rows = await self._all(sa.select(*_SUMMARY_COLUMNS).where(*where).limit(MAX_PAGE))
        return [_summary(r) for r in rows]

    async def called_instances(self, parent_id: str, viewer: Viewer) -> list[LinkedInstance]:
        c = t.instances.c
        where = (c.parent_instance_id == parent_id, self._visible(viewer))
        rows = await self._all(_linked_query(*where).order_by(c.started_at, c.id).limit(MAX_PAGE))
        return [LinkedInstance(**r._mapping) for r in rows]

    async def linked_instance(self, instance_id: str, viewer: Viewer) -> LinkedInstance | None:
        where = (t.instances.c.id == instance_id, self._visible(viewer))
        rows = await self._all(_linked_query(*where))
        return LinkedInstance(**rows[0]._mapping) if rows else None

    def _versions_query(self, tenant: str | None) -> sa.Select[Any]:
        """The versions a reader acting for ``tenant`` sees (``definitions_of``)."""
        v = t.versions.c
        return (
            sa.select(
                t.definitions.c.key, v.version, v.status, v.checksum, v.published_at, v.schema
            )
            .join(t.definitions, t.definitions.c.id == v.definition_id)
            .where(definitions_of(tenant))
        )

    async def versions(self, key: str | None, *, tenant: str | None) -> list[VersionSummary]:
        query = self._versions_query(tenant).order_by(t.definitions.c.key, t.versions.c.version)
        if key is not None:
            query = query.where(t.definitions.c.key == key)
        fields = ("key", "version", "status", "checksum", "published_at")
        rows = await self._all(query)
        return [VersionSummary(**{f: getattr(r, f) for f in fields}) for r in rows]

    async def version(
        self, key: str, number: int | None, *, tenant: str | None
    ) -> VersionDocument | None:
        query = self._versions_query(tenant).where(t.definitions.c.key == key)
        if number is None:
            query = query.where(t.versions.c.status == "published")
        else:
            query = query.where(t.versions.c.version == number)
        rows = await self._all(query.order_by(t.versions.c.version.desc()).limit(1))
        if not rows:
            return None
        row = rows[0]
        return VersionDocument(
            **{f: getattr(row, f) for f in ("key", "version", "checksum", "published_at")},
            definition=msgspec.json.decode(row.schema),
        )

    async def dead_letters(
        self,
        status: str | None,
        before: str | None,
        limit: int,
        *,
        instance_id: str | None = None,
        viewer: Viewer | None = None,
    ) -> list[DeadLetterView]:
        c = t.dead_letters.c
        query = sa.select(t.dead_letters).order_by(c.id.desc()).limit(max(1, min(limit, MAX_PAGE)))
        if instance_id is not None:
            query = query.where(c.instance_id == instance_id)
        if viewer is not None:
            query = query.where(self._visible(viewer, c.instance_id))
        if status is not None:
            query = query.where(c.status == status)
        if before is not None:
            query = query.where(c.id < before)
        return [_letter(r) for r in await self._all(query)]

    async def dead_letter(
        self, letter_id: str, *, viewer: Viewer | None = None
    ) -> DeadLetterView | None:
        c = t.dead_letters.c
        query = sa.select(t.dead_letters).where(c.id == letter_id)
        if viewer is not None:
            query = query.where(self._visible(viewer, c.instance_id))
        rows = await self._all(query)
        return _letter(rows[0]) if rows else None

    async def audit_trail(self, instance_id: str) -> list[AuditView]:
        a = audit_log.c
        rows = await self._all(
            sa.select(audit_log)
            .where(
                sa.or_(
                    sa.and_(a.object_type == "workflow_instance", a.object_id == instance_id),
                    a.correlation_id == instance_id,
                )
            )
            .order_by(a.seq)
        )
        return [
            AuditView(
                seq=r.seq,
                at=r.at,
                action=r.action,
                object_type=r.object_type,
                object_id=r.object_id,
                actor=Actor(kind=r.actor_kind, id=r.actor_id),
                before=r.before,
                after=r.after,
                reason=r.reason,
            )
            for r in rows
        ]

    async def public_source(self, protocol: str) -> PublicSource | None:
        i, h = t.instances.c, t.history.c
        async with self._engine.connect() as conn:
            found = (
                await conn.execute(
                    sa.select(
                        i.id, i.protocol, i.status, i.started_at, i.ended_at, i.version_id
                    ).where(i.protocol == protocol)
                )
            ).first()
            if found is None:
                return None
            rows = (
                await conn.execute(
                    sa.select(h.event, h.to_node, h.at, h.data)
                    .where(
                        h.instance_id == found.id,
                        sa.or_(h.to_node.is_not(None), h.event == "migrated"),
                    )
                    .order_by(h.seq)
                )
            ).all()
            migrations = [r.data["event"] for r in rows if r.event == "migrated"]
            version = migrations[0]["from_version_id"] if migrations else found.version_id
            steps: list[tuple[str, datetime, str]] = []
            for r in rows:
                if r.event == "migrated":
                    version = r.data["event"]["to_version_id"]
                elif r.event != "transition.migrated":
                    steps.append((str(r.to_node), r.at, str(version)))
            used = {found.version_id, *(v for _, _, v in steps)}
            schemas = await conn.execute(
                sa.select(t.versions.c.id, t.versions.c.schema).where(t.versions.c.id.in_(used))
            )
            definitions = {str(v.id): msgspec.json.decode(v.schema) for v in schemas}
            logs = await conn.execute(
                sa.select(td.deadlines.c.events)
                .where(td.deadlines.c.instance_id == found.id)
                .order_by(td.deadlines.c.started_at, td.deadlines.c.name)
            )
            suspensions = _suspensions([row.events for row in logs])
        return PublicSource(
            protocol=found.protocol,
            status=found.status,
            started_at=found.started_at,
            ended_at=found.ended_at,
            definitions=definitions,
            entered=steps,
            suspensions=suspensions,
        )

    async def step_runs(self, instance_id: str) -> list[StepRunView]:
        async with self._engine.connect() as conn:
            return await ops_reads.step_runs_of(conn, instance_id)

    async def stuck_instances(
        self, progress_before: datetime, limit: int, *, viewer: Viewer | None = None
    ) -> list[StuckInstanceView]:
        # Up to one more than a page, so that a caller can tell that there are more.
        seen = None if viewer is None else self._visible(viewer)
        async with self._engine.connect() as conn:
            return await ops_reads.stuck_instances(
                conn, progress_before, max(1, min(limit, MAX_PAGE + 1)), seen
            )

    async def submissions(self, instance_id: str) -> list[SubmissionView]:
        s = h.form_submissions.c
        rows = await self._all(
            sa.select(h.form_submissions)
            .where(s.instance_id == instance_id)
            .order_by(s.submitted_at, s.id)
        )
        return [
            SubmissionView(
                id=str(r.id),
                task_id=str(r.task_id),
                form_key=r.form_key,
                form_version=r.form_version,
                snapshot=r.snapshot.encode(),
                actor_id=r.actor_id,
                submitted_at=r.submitted_at,
            )
            for r in rows
        ]


def _suspensions(logs: list[Any]) -> list[tuple[datetime, datetime | None, str | None]]:
    """Each suspension of the deadlines' event logs with its resumption and legal basis, in
    time order; reasons and actors are not copied."""
    found: list[tuple[datetime, datetime | None, str | None]] = []
    for events in logs:
        for event in msgspec.convert(events, list[DeadlineEvent]):
            at = event.at.astimezone(UTC)
            if isinstance(event, Suspension):
                found.append((at, None, event.legal_basis))
            elif isinstance(event, Resumption) and found and found[-1][1] is None:
                found[-1] = (found[-1][0], at, found[-1][2])
    return sorted(found, key=lambda item: item[0])
