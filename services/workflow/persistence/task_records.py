"""``contracts.workflow.task_records.TaskRecords`` on SQLAlchemy Core: completed tasks of a
definition's instances, for the statistics modules publish.

One query, in a short connection of its own: instances of the definition started in the
window (index ``ix_workflow_instances_started``) joined to their completed tasks on the given
nodes. Only the asked-for form fields are read, as text (``->>`` on PostgreSQL,
``json_extract`` on SQLite): the free text of an answer never leaves the database here.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from contracts.workflow.task_records import CompletedTask
from services.workflow.persistence import tables as t


class SqlTaskRecords:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def completed(
        self,
        definition_key: str,
        nodes: Collection[str],
        fields: Collection[str],
        *,
        started_from: datetime,
        started_before: datetime,
    ) -> list[CompletedTask]:
        i, k = t.instances.c, t.tasks.c
        names = sorted(set(fields))
        extracted = [k.data[name].as_string().label(f"f{n}") for n, name in enumerate(names)]
        query = (
            sa.select(
                i.id,
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
            .order_by(k.completed_at, k.id)
        )
        async with self._engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        found: list[CompletedTask] = []
        for row in rows:
            values = {
                name: str(row[6 + n])
                for n, name in enumerate(names)
                if row[6 + n] not in (None, "")
            }
            found.append(
                CompletedTask(
                    instance_id=str(row.id),
                    subject_id=str(row.subject_id),
                    definition_key=definition_key,
                    node_id=row.node_id,
                    outcome=row.outcome,
                    completed_at=row.completed_at,
                    due_at=row.due_at,
                    values=values,
                )
            )
        return found
