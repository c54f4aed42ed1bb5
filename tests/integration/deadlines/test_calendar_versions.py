"""Stored calendar versions: immutable, revised with an audit entry, and open deadlines
recomputed on the new version, saying which version they now use."""

from __future__ import annotations

from datetime import date

import msgspec
import pytest

from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.calendar import DatedHoliday, DeadlineRule, seal_spec
from services.workflow.runtime.services.deadline_service import CalendarVersionConflict
from tests.integration.deadlines.esic import (
    DEADLINE,
    OFFICER,
    VITORIA,
    at,
    bound_timer,
    deadline_trail,
    end_of,
    open_request,
    trail,
)

TEN_BUSINESS_DAYS = DeadlineRule(unit="business_days", days=10)
DECREE = DatedHoliday(name="Decreto municipal 77/2027", on=date(2027, 4, 23))


async def open_deadline(wf: WorkflowService, clock: FixedClock) -> str:
    """10 business days from Monday 12 April 2027: Tiradentes skipped, due Tuesday 27 April."""
    await wf.deadlines.publish_calendar(VITORIA, OFFICER)
    instance_id = await open_request(wf, clock, at(2027, 4, 12))
    await wf.deadlines.start(instance_id, DEADLINE, TEN_BUSINESS_DAYS, "br-es-vitoria", OFFICER)
    return instance_id


async def test_the_national_calendar_is_stored_at_boot(wf: WorkflowService) -> None:
    spec = await wf.deadlines.calendar("br-national")
    assert (spec.version, spec.checksum.startswith("sha256:")) == (1, True)


async def test_publishing_the_same_version_again_is_a_no_op(wf: WorkflowService) -> None:
    assert await wf.deadlines.publish_calendar(VITORIA, OFFICER) is True
    assert await wf.deadlines.publish_calendar(VITORIA, OFFICER) is False


async def test_a_stored_version_cannot_be_replaced_by_another_spec(wf: WorkflowService) -> None:
    await wf.deadlines.publish_calendar(VITORIA, OFFICER)
    changed = seal_spec(msgspec.structs.replace(VITORIA, facultative=(), checksum=""))
    with pytest.raises(CalendarVersionConflict):
        await wf.deadlines.publish_calendar(changed, OFFICER)


async def test_a_revision_stores_the_next_version_and_audits_both_checksums(
    wf: WorkflowService, clock: FixedClock
) -> None:
    await wf.deadlines.publish_calendar(VITORIA, OFFICER)
    spec = await wf.deadlines.revise_calendar(
        "br-es-vitoria", add_closed=[DECREE], reason="Decreto municipal 77/2027", actor=OFFICER
    )
    assert (spec.version, await wf.deadlines.calendar("br-es-vitoria", 1)) == (2, VITORIA)
    entry = (await trail(wf, "workflow_calendar", "br-es-vitoria"))[-1]
    assert (entry.action, entry.reason) == (
        "workflow.calendar.revised",
        "Decreto municipal 77/2027",
    )
    assert entry.before == {"version": 1, "checksum": VITORIA.checksum}
    assert entry.after is not None
    assert (entry.after["version"], entry.after["checksum"]) == (2, spec.checksum)
    assert entry.after["added"] == ["2027-04-23"]


async def test_a_revision_leaves_open_deadlines_on_their_version_until_recomputed(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await open_deadline(wf, clock)
    await wf.deadlines.revise_calendar(
        "br-es-vitoria", add_closed=[DECREE], reason="Decreto municipal 77/2027", actor=OFFICER
    )
    (view,) = await wf.deadlines.show(instance_id)
    assert (view.calendar_version, view.due_at) == (1, end_of(2027, 4, 27))


async def test_recomputing_moves_an_open_deadline_past_the_municipal_holiday(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await open_deadline(wf, clock)
    clock.set(at(2027, 4, 14))
    await wf.deadlines.revise_calendar(
        "br-es-vitoria", add_closed=[DECREE], reason="Decreto municipal 77/2027", actor=OFFICER
    )
    (view,) = await wf.deadlines.recompute_open("br-es-vitoria", OFFICER)
    assert (view.instance_id, view.calendar_version, view.due_at) == (
        instance_id,
        2,
        end_of(2027, 4, 28),
    )
    assert (await bound_timer(wf, instance_id)).due_at == end_of(2027, 4, 28)


async def test_recomputing_is_audited_with_both_calendar_versions(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id = await open_deadline(wf, clock)
    await wf.deadlines.revise_calendar(
        "br-es-vitoria", add_closed=[DECREE], reason="Decreto municipal 77/2027", actor=OFFICER
    )
    await wf.deadlines.recompute_open("br-es-vitoria", OFFICER)
    entry = (await deadline_trail(wf, instance_id))[-1]
    assert entry.action == "workflow.deadline.recomputed"
    assert entry.before is not None and entry.after is not None
    assert (entry.before["calendar_version"], entry.after["calendar_version"]) == (1, 2)
    assert (entry.before["due_at"], entry.after["due_at"]) == (
        end_of(2027, 4, 27).isoformat(),
        end_of(2027, 4, 28).isoformat(),
    )


async def test_recomputing_twice_finds_nothing_left_to_move(
    wf: WorkflowService, clock: FixedClock
) -> None:
    await open_deadline(wf, clock)
    await wf.deadlines.revise_calendar(
        "br-es-vitoria", add_closed=[DECREE], reason="Decreto municipal 77/2027", actor=OFFICER
    )
    await wf.deadlines.recompute_open("br-es-vitoria", OFFICER)
    assert await wf.deadlines.recompute_open("br-es-vitoria", OFFICER) == []
