"""A ``business_days`` timer counts on the jurisdiction's current stored calendar, like the
legal rules: after a closure is decreed, a timer started on Monday 02/03/2026 for 3 business
days skips it (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import date
from typing import Any

from contracts.workflow.types import StartRequest
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.calendar import DatedHoliday
from tests.integration.deadlines.esic import OFFICER, at, end_of

SLA: dict[str, Any] = {
    "format": 1,
    "key": "sla.request",
    "name": "Pedido com SLA",
    "protocol_prefix": "SLA",
    "nodes": [
        {"id": "receive", "type": "start", "next": "answer"},
        {
            "id": "answer",
            "name": "Answer",
            "type": "user_task",
            "queue": "approval",
            "timers": [{"id": "sla", "business_days": 3, "next": "late"}],
            "next": "done",
        },
        {"id": "done", "type": "end"},
        {"id": "late", "type": "end", "result": "expired"},
    ],
}


async def _due(wf: WorkflowService, clock: FixedClock) -> object:
    clock.set(at(2026, 3, 2))
    view = await wf.engine.start(StartRequest(definition_key="sla.request", actor=OFFICER))
    (task,) = await wf.engine.tasks(view.id)
    async with wf.engine._uow() as uow:
        (timer,) = await uow.timers.of(view.id)
    assert task.due_at == timer.due_at
    return timer.due_at


async def test_three_business_days_from_monday_end_on_thursday(
    wf: WorkflowService, clock: FixedClock
) -> None:
    await wf.engine.publisher.publish(SLA, actor=OFFICER)
    assert await _due(wf, clock) == end_of(2026, 3, 5)


async def test_a_decreed_closure_is_skipped_by_the_next_business_day_timer(
    wf: WorkflowService, clock: FixedClock
) -> None:
    await wf.engine.publisher.publish(SLA, actor=OFFICER)
    await wf.deadlines.revise_calendar(
        "br-national",
        add_closed=[DatedHoliday(name="Decreto 12/2026", on=date(2026, 3, 4))],
        reason="Decreto 12/2026",
        actor=OFFICER,
    )
    assert await _due(wf, clock) == end_of(2026, 3, 6)
