"""Deadlines started on instances: stored with the calendar version, bound to the timer, and
counted across Carnival, Good Friday and New Year."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.calendar import ESIC_REQUEST, DeadlineRule
from services.workflow.runtime.services.deadline_service import DeadlineExists
from tests.integration.deadlines.esic import (
    DEADLINE,
    OFFICER,
    VITORIA,
    at,
    bound_timer,
    deadline_trail,
    end_of,
    instance_due,
    open_request,
    task_due,
)

TWENTY_BUSINESS_DAYS = DeadlineRule(unit="business_days", days=20)


async def test_a_business_day_deadline_started_on_carnival_monday_skips_carnival(
    wf: WorkflowService, clock: FixedClock
) -> None:
    await wf.deadlines.publish_calendar(VITORIA, OFFICER)
    instance_id = await open_request(wf, clock, at(2027, 2, 8))
    view = await wf.deadlines.start(
        instance_id, DEADLINE, TWENTY_BUSINESS_DAYS, "br-es-vitoria", OFFICER
    )
    # Closed 8-9 Feb (Carnival); business day 1 is Ash Wednesday: the 20th is 9 March.
    assert view.due_at == end_of(2027, 3, 9)
    assert (view.calendar_key, view.calendar_version) == ("br-es-vitoria", 1)


async def test_the_national_calendar_leaves_carnival_a_business_day(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await open_request(wf, clock, at(2027, 2, 8))
    view = await wf.deadlines.start(
        instance_id, DEADLINE, TWENTY_BUSINESS_DAYS, "br-national", OFFICER
    )
    assert view.due_at == end_of(2027, 3, 8)


async def test_starting_a_deadline_moves_the_bound_timer_the_task_and_the_instance(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await open_request(wf, clock, at(2027, 3, 1))
    assert (await bound_timer(wf, instance_id)).due_at == at(2027, 3, 1) + timedelta(days=90)
    await wf.deadlines.start(instance_id, DEADLINE, ESIC_REQUEST, "br-national", OFFICER)
    timer = await bound_timer(wf, instance_id)
    assert (timer.status, timer.due_at) == ("pending", end_of(2027, 3, 22))
    assert await instance_due(wf, instance_id) == end_of(2027, 3, 22)
    assert await task_due(wf, instance_id) == end_of(2027, 3, 22)


async def test_starting_a_deadline_is_audited_with_its_calendar_version(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await open_request(wf, clock, at(2027, 3, 1))
    await wf.deadlines.start(instance_id, DEADLINE, ESIC_REQUEST, "br-national", OFFICER)
    (entry,) = await deadline_trail(wf, instance_id)
    assert entry.action == "workflow.deadline.started" and entry.actor == OFFICER
    assert entry.after is not None
    assert (entry.after["calendar_key"], entry.after["calendar_version"]) == ("br-national", 1)
    assert entry.after["due_at"] == end_of(2027, 3, 22).isoformat()


async def test_a_second_deadline_with_the_same_name_is_refused(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await open_request(wf, clock, at(2027, 3, 1))
    await wf.deadlines.start(instance_id, DEADLINE, ESIC_REQUEST, "br-national", OFFICER)
    with pytest.raises(DeadlineExists):
        await wf.deadlines.start(instance_id, DEADLINE, ESIC_REQUEST, "br-national", OFFICER)


async def test_a_calendar_day_deadline_ending_on_good_friday_moves_to_monday(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await open_request(wf, clock, at(2027, 3, 6))
    view = await wf.deadlines.start(instance_id, DEADLINE, ESIC_REQUEST, "br-national", OFFICER)
    # 20 days from 6 March end on Friday 26 March 2027, Good Friday.
    assert view.due_at == end_of(2027, 3, 29)


async def test_a_deadline_across_the_year_boundary_skips_christmas_and_new_year(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await open_request(wf, clock, at(2026, 12, 22))
    rule = DeadlineRule(unit="business_days", days=10)
    view = await wf.deadlines.start(instance_id, DEADLINE, rule, "br-national", OFFICER)
    assert view.due_at == end_of(2027, 1, 7)
    assert (await bound_timer(wf, instance_id)).due_at == end_of(2027, 1, 7)


async def test_show_lists_the_deadline_with_the_units_left_today(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await open_request(wf, clock, at(2027, 3, 1))
    await wf.deadlines.start(instance_id, DEADLINE, ESIC_REQUEST, "br-national", OFFICER)
    clock.set(at(2027, 3, 12))
    (view,) = await wf.deadlines.show(instance_id)
    assert (view.name, view.status, view.remaining_units, view.overdue) == (
        DEADLINE,
        "running",
        10,
        False,
    )
