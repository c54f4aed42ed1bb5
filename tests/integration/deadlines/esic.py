"""An e-SIC-like request and the helpers the deadline tests share."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from contracts.kernel import Actor, AuditEntry
from contracts.workflow.types import StartRequest
from core.audit import read_trail
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.calendar import AnnualHoliday, CalendarSpec, seal_spec
from services.workflow.persistence.unit_of_work import SqlUnitOfWork
from services.workflow.runtime.ports import TimerRecord

OFFICER = Actor(id="officer-7")
DEADLINE = "prazo"
# Vitória (ES): state holidays from the package, the city's anniversary, Carnival closed.
VITORIA = seal_spec(
    CalendarSpec(
        key="br-es-vitoria",
        version=1,
        subdivision="ES",
        municipal_holidays=(AnnualHoliday(name="Aniversario de Vitoria", month=9, day=8),),
        facultative=("Carnival",),
    )
)

ESIC: dict[str, Any] = {
    "format": 1,
    "key": "esic.request",
    "name": "Pedido de acesso a informacao",
    "protocol_prefix": "SIC",
    "nodes": [
        {"id": "receive", "type": "start", "next": "answer"},
        {
            "id": "answer",
            "name": "Answer",
            "type": "user_task",
            "queue": "approval",
            "timers": [{"id": DEADLINE, "duration": "P90D", "interrupting": True, "next": "late"}],
            "next": "publish",
        },
        {
            "id": "publish",
            "name": "Publish",
            "type": "user_task",
            "queue": "approval",
            "next": "done",
        },
        {"id": "done", "type": "end"},
        {"id": "late", "type": "end", "result": "expired"},
    ],
}


def at(year: int, month: int, day: int, hour: int = 13) -> datetime:
    """An instant in UTC (13:00 UTC is 10:00 in Brasília: office hours, same local date)."""
    return datetime(year, month, day, hour, tzinfo=UTC)


async def open_request(wf: WorkflowService, clock: FixedClock, when: datetime) -> str:
    clock.set(when)
    view = await wf.engine.start(StartRequest(definition_key="esic.request", actor=OFFICER))
    await wf.delivery.drain()
    return view.id


async def bound_timer(wf: WorkflowService, instance_id: str) -> TimerRecord:
    async with wf.engine._uow() as uow:
        timers = await uow.timers.of(instance_id)
    (timer,) = [t for t in timers if t.timer_id == DEADLINE]
    return timer


async def instance_due(wf: WorkflowService, instance_id: str) -> datetime | None:
    async with wf.engine._uow() as uow:
        record = await uow.instances.get(instance_id)
    assert record is not None
    return record.due_at


async def task_due(wf: WorkflowService, instance_id: str) -> datetime | None:
    (task,) = await wf.engine.tasks(instance_id)
    return task.due_at


async def trail(wf: WorkflowService, object_type: str, object_id: str) -> list[AuditEntry]:
    async with wf.engine._uow() as uow:
        assert isinstance(uow, SqlUnitOfWork)
        records = await read_trail(uow.conn, object_type, object_id)
    return [r.entry for r in records]


async def deadline_trail(wf: WorkflowService, instance_id: str) -> list[AuditEntry]:
    entries = await trail(wf, "workflow_instance", instance_id)
    return [e for e in entries if e.action.startswith("workflow.deadline.")]


def end_of(year: int, month: int, day: int) -> datetime:
    """23:59:59 in Brasília: when a deadline ending that day ends."""
    return datetime(year, month, day, 23, 59, 59, tzinfo=ZoneInfo("America/Sao_Paulo"))
