"""Records as the contract's views (what leaves the service)."""

from __future__ import annotations

from typing import Any

import msgspec

from contracts.workflow.types import HistoryEntry, InstanceView, SubjectRef, TaskMulti, TaskView
from services.workflow.runtime.kernel.failures import failure_view
from services.workflow.runtime.ports import HistoryRecord, InstanceRecord, TaskRecord


def instance_view(r: InstanceRecord, *, with_context: bool = False) -> InstanceView:
    return InstanceView(
        id=r.id,
        protocol=r.protocol,
        definition_key=r.definition_key,
        definition_version=r.definition_version,
        status=r.status,  # type: ignore[arg-type]
        current_nodes=tuple(r.current_nodes),
        subject=SubjectRef(type=r.subject_type, id=r.subject_id)
        if r.subject_type and r.subject_id
        else None,
        business_key=r.business_key,
        started_at=r.started_at,
        updated_at=r.updated_at,
        ended_at=r.ended_at,
        due_at=r.due_at,
        row_version=r.row_version,
        context=dict(r.context) if with_context else {},
        failure=failure_view(r.state) if r.status in ("failed", "compensating") else None,
        parent_instance_id=r.parent_instance_id,
    )


def task_view(r: TaskRecord, protocol: str) -> TaskView:
    return TaskView(
        id=r.id,
        instance_id=r.instance_id,
        protocol=protocol,
        node_id=r.node_id,
        name=r.name,
        queue=r.queue,
        assignee=r.assignee,
        status=r.status,  # type: ignore[arg-type]
        form=r.form,
        outcomes=tuple(r.outcomes),
        priority=r.priority,
        created_at=r.created_at,
        due_at=r.due_at,
        claimed_at=r.claimed_at,
        completed_at=r.completed_at,
        multi=task_multi(r.multi),
    )


def task_multi(stored: dict[str, Any] | None) -> TaskMulti | None:
    """A task row's ``multi`` column as the view's (``None``: not a multi-instance task)."""
    return None if not stored else msgspec.convert(stored, TaskMulti)


def history_entry(r: HistoryRecord) -> HistoryEntry:
    data = {k: v for k, v in r.data.items() if k != "event"}
    return HistoryEntry(
        seq=r.seq,
        at=r.at,
        event=r.event,
        from_node=r.from_node,
        to_node=r.to_node,
        actor=r.actor,
        data=data,
    )
