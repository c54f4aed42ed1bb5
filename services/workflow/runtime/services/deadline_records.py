"""How a deadline is written down and what it moves: its stored row, the view callers get, the
audit entry of a transition, and the timer bound to it (named like the deadline), which moves
with it — see :mod:`~services.workflow.runtime.services.deadline_service`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from contracts.kernel import Actor, AuditEntry
from services.workflow.calendar import Calendar, Deadline, DeadlineAudit, is_overdue, remaining
from services.workflow.runtime.ports import InstanceRecord, TimerRecord, UnitOfWork
from services.workflow.runtime.ports.deadlines import DeadlineRow, DeadlineStore, DeadlineView
from services.workflow.runtime.services.applier import state_from_json


def iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


async def bind_timer(
    uow: UnitOfWork,
    store: DeadlineStore,
    record: InstanceRecord,
    name: str,
    deadline: Deadline,
    now: datetime,
) -> None:
    """Move the timer named like the deadline, and the instance's due date with it."""
    timer = await store.bound_timer(record.id, name)
    if timer is None:
        return
    if deadline.due is None:
        await store.move_timer(timer, status="suspended", due_at=timer.due_at)
    elif timer.status == "pending" or _token_waits(record, timer):
        await store.move_timer(timer, status="pending", due_at=deadline.due)
    else:
        await store.move_timer(timer, status="cancelled", due_at=timer.due_at)
    due = await uow.timers.next_due(record.id)
    if due != record.due_at:
        updated = msgspec.structs.replace(record, due_at=due, updated_at=now)
        await uow.instances.update(updated, expected_version=record.row_version)


def _token_waits(record: InstanceRecord, timer: TimerRecord) -> bool:
    if record.ended_at is not None:
        return False
    tokens = state_from_json(record.state).tokens
    return any(
        token.id == timer.token_id
        and token.node_id == timer.node_id
        and token.attempt_group == timer.attempt_group
        for token in tokens
    )


def deadline_row(instance_id: str, name: str, deadline: Deadline, now: datetime) -> DeadlineRow:
    assert deadline.started_at is not None  # the service always starts from an instant
    return DeadlineRow(
        instance_id=instance_id,
        name=name,
        rule=deadline.rule,
        calendar_key=deadline.calendar_key,
        calendar_version=deadline.calendar_version,
        calendar_checksum=deadline.calendar_checksum,
        started_at=deadline.started_at,
        due_at=deadline.due,
        status=deadline.status,
        events=deadline.events,
        updated_at=now,
    )


def audit_entry(instance_id: str, name: str, actor: Actor, audit: DeadlineAudit) -> AuditEntry:
    """Identifiers, dates and counts in before/after; free text only in ``reason``."""
    before: dict[str, Any] = {
        "deadline": name,
        "due_at": iso(audit.due_before),
        "calendar_version": audit.calendar_version_before,
    }
    after: dict[str, Any] = {
        "deadline": name,
        "due_at": iso(audit.due_after),
        "calendar_key": audit.calendar_key,
        "calendar_version": audit.calendar_version_after,
        "remaining_units": audit.remaining_units,
    }
    if audit.extension_days is not None:
        after["extension_days"] = audit.extension_days
    if audit.legal_basis is not None:
        after["legal_basis"] = audit.legal_basis
    return AuditEntry(
        action=f"workflow.deadline.{audit.action}",
        object_type="workflow_instance",
        object_id=instance_id,
        actor=actor,
        before=before,
        after=after,
        reason=audit.reason,
    )


def deadline_view(
    instance_id: str, name: str, deadline: Deadline, calendar: Calendar, now: datetime
) -> DeadlineView:
    return DeadlineView(
        instance_id=instance_id,
        name=name,
        rule=deadline.rule,
        status=deadline.status,
        started_at=deadline.started_at or calendar.end_of_day(deadline.started_on),
        due_at=deadline.due,
        calendar_key=deadline.calendar_key,
        calendar_version=deadline.calendar_version,
        calendar_checksum=deadline.calendar_checksum,
        extensions_used=deadline.extensions_used,
        remaining_units=remaining(deadline, calendar, now),
        overdue=is_overdue(deadline, now),
        events=deadline.events,
    )
