"""Extensions, suspensions and resumptions of a running deadline: each one transaction that
updates the deadline, audits it and moves the bound timer."""

from __future__ import annotations

import pytest

from contracts.errors import InvalidTransition
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.calendar import ESIC_REQUEST, ExtensionRefused
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

BASIS = "Decreto 9.492/2018, art. 18"
JUSTIFICATION = "Information held by three departments; consolidation needed."


async def running(wf: WorkflowService, clock: FixedClock) -> str:
    """An e-SIC request received on Monday 1 March 2027: due Monday 22 March (Vitória)."""
    await wf.deadlines.publish_calendar(VITORIA, OFFICER)
    instance_id = await open_request(wf, clock, at(2027, 3, 1))
    await wf.deadlines.start(instance_id, DEADLINE, ESIC_REQUEST, "br-es-vitoria", OFFICER)
    return instance_id


async def test_an_extension_adds_ten_days_from_the_nominal_end_and_moves_the_timer(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await running(wf, clock)
    clock.set(at(2027, 3, 10))
    view = await wf.deadlines.extend(instance_id, DEADLINE, JUSTIFICATION, OFFICER)
    assert (view.due_at, view.extensions_used) == (end_of(2027, 3, 31), 1)
    assert (await bound_timer(wf, instance_id)).due_at == end_of(2027, 3, 31)
    assert await instance_due(wf, instance_id) == end_of(2027, 3, 31)


async def test_an_extension_is_audited_with_its_justification_and_both_due_dates(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await running(wf, clock)
    clock.set(at(2027, 3, 10))
    await wf.deadlines.extend(instance_id, DEADLINE, JUSTIFICATION, OFFICER)
    entry = (await deadline_trail(wf, instance_id))[-1]
    assert (entry.action, entry.actor, entry.reason) == (
        "workflow.deadline.extended",
        OFFICER,
        JUSTIFICATION,
    )
    assert entry.before is not None and entry.after is not None
    assert entry.before["due_at"] == end_of(2027, 3, 22).isoformat()
    assert entry.after["due_at"] == end_of(2027, 3, 31).isoformat()
    assert (entry.after["calendar_version"], entry.after["extension_days"]) == (1, 10)


async def test_a_second_extension_is_refused_and_changes_nothing(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await running(wf, clock)
    clock.set(at(2027, 3, 10))
    await wf.deadlines.extend(instance_id, DEADLINE, JUSTIFICATION, OFFICER)
    with pytest.raises(ExtensionRefused) as refused:
        await wf.deadlines.extend(instance_id, DEADLINE, JUSTIFICATION, OFFICER)
    assert [e.code for e in refused.value.errors] == ["limit_reached"]
    assert len(await deadline_trail(wf, instance_id)) == 2  # started, extended once
    (view,) = await wf.deadlines.show(instance_id, DEADLINE)
    assert view.due_at == end_of(2027, 3, 31)


async def test_an_extension_without_justification_is_refused(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await running(wf, clock)
    with pytest.raises(ExtensionRefused) as refused:
        await wf.deadlines.extend(instance_id, DEADLINE, "   ", OFFICER)
    assert [e.path for e in refused.value.errors] == ["justification"]
    assert (await bound_timer(wf, instance_id)).due_at == end_of(2027, 3, 22)


async def test_a_suspension_parks_the_bound_timer_and_clears_the_due_dates(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await running(wf, clock)
    clock.set(at(2027, 3, 5))
    view = await wf.deadlines.suspend(
        instance_id, DEADLINE, "Requester asked to clarify", OFFICER, legal_basis=BASIS
    )
    assert (view.status, view.due_at, view.remaining_units) == ("suspended", None, 16)
    assert (await bound_timer(wf, instance_id)).status == "suspended"
    assert await instance_due(wf, instance_id) is None
    assert await task_due(wf, instance_id) is None


async def test_a_tick_never_fires_the_timer_of_a_suspended_deadline(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await running(wf, clock)
    clock.set(at(2027, 3, 5))
    await wf.deadlines.suspend(
        instance_id, DEADLINE, "Requester asked to clarify", OFFICER, legal_basis=BASIS
    )
    clock.set(at(2027, 3, 25))
    assert await wf.engine.tick() == 0
    assert (await wf.engine.status(instance_id)).status == "waiting"


async def test_a_resumption_gives_back_the_suspended_days_and_moves_the_timer(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await running(wf, clock)
    clock.set(at(2027, 3, 5))
    await wf.deadlines.suspend(
        instance_id, DEADLINE, "Requester asked to clarify", OFFICER, legal_basis=BASIS
    )
    clock.set(at(2027, 3, 15))
    view = await wf.deadlines.resume(instance_id, DEADLINE, OFFICER)
    assert (view.status, view.due_at) == ("running", end_of(2027, 3, 31))
    timer = await bound_timer(wf, instance_id)
    assert (timer.status, timer.due_at) == ("pending", end_of(2027, 3, 31))
    assert await task_due(wf, instance_id) == end_of(2027, 3, 31)


async def test_suspension_and_resumption_are_both_audited(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await running(wf, clock)
    clock.set(at(2027, 3, 5))
    await wf.deadlines.suspend(
        instance_id, DEADLINE, "Requester asked to clarify", OFFICER, legal_basis=BASIS
    )
    clock.set(at(2027, 3, 15))
    await wf.deadlines.resume(instance_id, DEADLINE, OFFICER)
    suspended, resumed = (await deadline_trail(wf, instance_id))[1:]
    assert (suspended.action, suspended.reason) == (
        "workflow.deadline.suspended",
        "Requester asked to clarify",
    )
    assert suspended.after is not None and suspended.after["due_at"] is None
    assert suspended.after["legal_basis"] == BASIS
    assert resumed.action == "workflow.deadline.resumed" and resumed.before is not None
    assert resumed.before["due_at"] is None and resumed.after is not None
    assert resumed.after["due_at"] == end_of(2027, 3, 31).isoformat()


async def test_the_resumed_timer_fires_at_the_new_due_date(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await running(wf, clock)
    clock.set(at(2027, 3, 5))
    await wf.deadlines.suspend(
        instance_id, DEADLINE, "Requester asked to clarify", OFFICER, legal_basis=BASIS
    )
    clock.set(at(2027, 3, 15))
    await wf.deadlines.resume(instance_id, DEADLINE, OFFICER)
    clock.set(end_of(2027, 3, 31))
    assert await wf.engine.tick() == 1
    await wf.delivery.drain()
    assert (await wf.engine.status(instance_id)).status == "expired"


async def test_a_deadline_of_an_ended_instance_cannot_change(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await running(wf, clock)
    await wf.engine.cancel(instance_id, actor=OFFICER, reason="withdrawn")
    with pytest.raises(InvalidTransition):
        await wf.deadlines.suspend(
            instance_id, DEADLINE, "Requester asked to clarify", OFFICER, legal_basis=BASIS
        )


async def test_a_resumption_after_the_answer_cancels_the_parked_timer(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await running(wf, clock)
    clock.set(at(2027, 3, 5))
    await wf.deadlines.suspend(
        instance_id, DEADLINE, "Requester asked to clarify", OFFICER, legal_basis=BASIS
    )
    await wf.engine.signal(instance_id, "answer", payload={}, actor=OFFICER)
    clock.set(at(2027, 3, 15))
    await wf.deadlines.resume(instance_id, DEADLINE, OFFICER)
    async with wf.engine._uow() as uow:
        (timer,) = [t for t in await uow.timers.of(instance_id) if t.timer_id == DEADLINE]
    assert timer.status == "cancelled"
    assert (await wf.engine.status(instance_id)).current_nodes == ("publish",)
