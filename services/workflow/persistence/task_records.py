"""``contracts.workflow.task_records.TaskRecords`` on SQLAlchemy Core: completed tasks of a
definition's instances, for the statistics modules publish.

One query (``completed_query``, which a module may also join to its own tables and count in
SQL): instances of the definition started in the window (index
``ix_workflow_instances_started``) joined to their completed tasks on the given nodes. Only
the asked-for form fields are read, as text (``->>`` on PostgreSQL, ``json_extract`` on
SQLite): the free text of an answer never leaves the database here.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from contracts.workflow.task_records import CompletedTask
from services.workflow.persistence import tables as t
from services.workflow.persistence.tables_privacy import purges

COLUMNS = ("task_id", "instance_id", "subject_id", "node_id", "outcome", "completed_at", "due_at")


class SqlTaskRecords:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    def completed_query(
        self,
        definition_key: str,
        nodes: Collection[str],
        fields: Collection[str],
        *,
        started_from: datetime,
        started_before: datetime,
    ) -> sa.Subquery:
        i, k = t.instances.c, t.tasks.c
        clash = set(fields) & set(COLUMNS)
        if clash:
            raise ValueError(f"form fields named like a column: {sorted(clash)}")
        extracted = [
            sa.func.nullif(k.data[name].as_string(), "").label(name) for name in sorted(set(fields))
        ]
        return (
            sa.select(
                k.id.label("task_id"),
                i.id.label("instance_id"),
                i.subject_id,
                k.node_id,
                k.outcome,
                k.completed_at,
                k.due_at,
                *extracted,
            )
            .select_from(t.instances.join(t.tasks, k.instance_id == i.id))
            .where(
                i.definition_key == definition_key,
                i.started_at >= started_from,
                i.started_at < started_before,
                i.subject_id.is_not(None),
                k.status == "completed",
                k.node_id.in_(sorted(set(nodes))),
            )
            .subquery("completed_tasks")
        )

    def versions_query(
        self, definition_key: str, *, started_from: datetime, started_before: datetime
    ) -> sa.Subquery:
        """``row_version`` grows with every step and task completion (same transaction); a
        purge rewrites data without a step, so a purged instance counts one more."""
        i = t.instances.c
        purged = sa.case((purges.c.instance_id.is_(None), 0), else_=1)
        return (
            sa.select(
                i.id.label("instance_id"),
                i.subject_id,
                i.started_at,
                (i.row_version + purged).label("version"),
            )
            .select_from(t.instances.outerjoin(purges, purges.c.instance_id == i.id))
            .where(
                i.definition_key == definition_key,
                i.started_at >= started_from,
                i.started_at < started_before,
                i.subject_id.is_not(None),
            )
            .subquery("instance_versions")
        )

    async def completed(
        self,
        definition_key: str,
        nodes: Collection[str],
        fields: Collection[str],
        *,
        started_from: datetime,
        started_before: datetime,
    ) -> list[CompletedTask]:
        names = sorted(set(fields))
        q = self.completed_query(
            definition_key,
            nodes,
            names,
            started_from=started_from,
            started_before=started_before,
        )
        query = sa.select(q).order_by(q.c.completed_at, q.c.task_id)
        async with self._engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [
            CompletedTask(
                instance_id=str(row.instance_id),
                subject_id=str(row.subject_id),
                definition_key=definition_key,
                node_id=row.node_id,
                outcome=row.outcome,
                completed_at=row.completed_at,
                due_at=row.due_at,
                values={n: str(row._mapping[n]) for n in names if row._mapping[n] is not None},
            )
            for row in rows
        ]
