"""The deadline state machine, on a fixed clock. Expected dates were worked out by hand."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import msgspec
import pytest

from services.workflow.calendar import (
    ESIC_REQUEST,
    Calendar,
    CalendarMismatch,
    DatedHoliday,
    Deadline,
    DeadlineInputInvalid,
    DeadlineRule,
    DeadlineRuleInvalid,
    DeadlineStateInvalid,
    ExtensionRefused,
    extend,
    is_overdue,
    recompute,
    remaining,
    replay,
    resume,
    revise,
    start_deadline,
    suspend,
)

SP = ZoneInfo("America/Sao_Paulo")
BUSINESS_10 = DeadlineRule(unit="business_days", days=10)
SECRET = "Requester Maria da Silva asked for the file"  # must never surface in errors


def at(month: int, day: int, hour: int = 12, year: int = 2027) -> datetime:
    return datetime(year, month, day, hour, tzinfo=SP)


def end_of(month: int, day: int, year: int = 2027) -> datetime:
    return datetime(year, month, day, 23, 59, 59, tzinfo=SP)


def _esic(calendar: Calendar) -> Deadline:
    # Monday 1 Mar 2027 + 20 days = Sunday 21 Mar, so the deadline moves to Monday 22.
    return start_deadline(ESIC_REQUEST, calendar, at(3, 1, 10))


def test_esic_request_counts_twenty_calendar_days_and_ends_on_a_business_day(
    es: Calendar,
) -> None:
    deadline = _esic(es)
    assert deadline.due == end_of(3, 22)
    assert deadline.status == "running"


def test_deadline_names_the_calendar_version_it_used(vitoria: Calendar) -> None:
    deadline = _esic(vitoria)
    assert (deadline.calendar_key, deadline.calendar_version) == ("br-es-vitoria", 1)
    assert deadline.calendar_checksum == vitoria.checksum


def test_a_date_start_counts_like_an_instant_on_that_day(es: Calendar) -> None:
    assert start_deadline(ESIC_REQUEST, es, date(2027, 3, 1)).due == _esic(es).due


def test_start_day_is_local_to_the_calendar(es: Calendar) -> None:
    late_utc = datetime(2027, 3, 2, 2, 0, tzinfo=ZoneInfo("UTC"))  # 23:00 on 1 Mar in Vitória
    assert start_deadline(ESIC_REQUEST, es, late_utc).started_on == date(2027, 3, 1)


def test_naive_start_is_refused(es: Calendar) -> None:
    with pytest.raises(DeadlineInputInvalid):
        start_deadline(ESIC_REQUEST, es, datetime(2027, 3, 1, 10))


def test_rule_without_extension_days_cannot_allow_extensions(es: Calendar) -> None:
    rule = DeadlineRule(unit="calendar_days", days=20, max_extensions=1, extension_days=0)
    with pytest.raises(DeadlineRuleInvalid):
        start_deadline(rule, es, at(3, 1))


def test_suspension_gives_back_the_suspended_days(es: Calendar) -> None:
    stopped, audit = suspend(_esic(es), es, at=at(3, 5, 15), reason="complement", actor="u-7")
    assert (stopped.status, stopped.due) == ("suspended", None)
    assert remaining(stopped, es, at(3, 10)) == 16  # 2-5 Mar used four of twenty days
    assert (audit.action, audit.due_before, audit.due_after) == ("suspended", end_of(3, 22), None)
    assert (audit.actor, audit.reason, audit.remaining_units) == ("u-7", "complement", 16)

    running, audit = resume(stopped, es, at=at(3, 15, 9), actor="u-8")
    # Sixteen days counted again from 15 Mar (excluded): Wednesday 31 Mar.
    assert running.due == end_of(3, 31)
    assert (audit.action, audit.due_before, audit.due_after) == ("resumed", None, end_of(3, 31))
    assert audit.actor == "u-8"


def test_business_day_suspension_recounts_what_was_left_from_the_resumption(
    es: Calendar,
) -> None:
    # Monday 12 Apr + 10 business days, Tiradentes (21) skipped: Tuesday 27 Apr.
    deadline = start_deadline(BUSINESS_10, es, at(4, 12))
    assert deadline.due == end_of(4, 27)
    stopped, _ = suspend(deadline, es, at=at(4, 16), reason="complement", actor="u-1")
    assert remaining(stopped, es, at(4, 20)) == 6
    running, _ = resume(stopped, es, at=at(4, 22), actor="u-1")
    assert running.due == end_of(4, 30)


def test_resuming_on_the_day_of_suspension_keeps_the_due_date(es: Calendar) -> None:
    deadline = start_deadline(BUSINESS_10, es, at(4, 12))
    stopped, _ = suspend(deadline, es, at=at(4, 16, 9), reason="complement", actor="u-1")
    running, _ = resume(stopped, es, at=at(4, 16, 17), actor="u-1")
    assert running.due == deadline.due


def test_suspension_after_the_nominal_end_leaves_only_the_resumption_day(es: Calendar) -> None:
    rule = DeadlineRule(unit="calendar_days", days=5)
    deadline = start_deadline(rule, es, at(3, 1))  # Saturday 6 Mar -> Monday 8 Mar
    assert deadline.due == end_of(3, 8)
    stopped, _ = suspend(deadline, es, at=at(3, 8, 10), reason="complement", actor="u-1")
    assert remaining(stopped, es, at(3, 9)) == 0
    running, _ = resume(stopped, es, at=at(3, 10, 9), actor="u-1")
    assert running.due == end_of(3, 10)


def test_suspending_twice_is_refused(es: Calendar) -> None:
    stopped, _ = suspend(_esic(es), es, at=at(3, 5), reason="complement", actor="u-1")
    with pytest.raises(DeadlineStateInvalid):
        suspend(stopped, es, at=at(3, 6), reason="again", actor="u-1")


def test_resuming_a_running_deadline_is_refused(es: Calendar) -> None:
    with pytest.raises(DeadlineStateInvalid):
        resume(_esic(es), es, at=at(3, 5), actor="u-1")


def test_an_expired_deadline_cannot_be_suspended(es: Calendar) -> None:
    with pytest.raises(DeadlineStateInvalid):
        suspend(_esic(es), es, at=at(3, 23, 0), reason="complement", actor="u-1")


def test_an_event_older_than_the_previous_one_is_refused(es: Calendar) -> None:
    stopped, _ = suspend(_esic(es), es, at=at(3, 5, 15), reason="complement", actor="u-1")
    with pytest.raises(DeadlineInputInvalid):
        resume(stopped, es, at=at(3, 5, 14), actor="u-1")


def test_a_suspension_without_reason_is_refused(es: Calendar) -> None:
    with pytest.raises(DeadlineInputInvalid) as caught:
        suspend(_esic(es), es, at=at(3, 5), reason=" ", actor="u-1")
    assert [(e.path, e.code) for e in caught.value.errors] == [("reason", "required")]


def test_extension_adds_ten_days_with_a_recorded_justification(es: Calendar) -> None:
    extended, audit = extend(_esic(es), es, justification=SECRET, actor="u-9", at=at(3, 20))
    # Twenty plus ten days from 1 Mar: Wednesday 31 Mar.
    assert extended.due == end_of(3, 31)
    assert extended.extensions_used == 1
    assert (audit.action, audit.extension_days, audit.reason) == ("extended", 10, SECRET)
    assert (audit.due_before, audit.due_after, audit.actor) == (end_of(3, 22), end_of(3, 31), "u-9")


def test_a_second_extension_is_refused_without_echoing_the_justification(es: Calendar) -> None:
    extended, _ = extend(_esic(es), es, justification="volume", actor="u-9", at=at(3, 20))
    with pytest.raises(ExtensionRefused) as caught:
        extend(extended, es, justification=SECRET, actor="u-9", at=at(3, 25))
    assert [(e.path, e.code) for e in caught.value.errors] == [("extensions", "limit_reached")]
    assert "Maria" not in str(msgspec.json.encode(caught.value.to_problem()))


def test_an_extension_without_justification_is_refused(es: Calendar) -> None:
    with pytest.raises(ExtensionRefused) as caught:
        extend(_esic(es), es, justification="   ", actor="u-9", at=at(3, 20))
    assert [(e.path, e.code) for e in caught.value.errors] == [("justification", "required")]


def test_an_extension_after_expiry_is_refused(es: Calendar) -> None:
    with pytest.raises(ExtensionRefused) as caught:
        extend(_esic(es), es, justification="late", actor="u-9", at=at(3, 23, 8))
    assert [(e.path, e.code) for e in caught.value.errors] == [("at", "expired")]


def test_an_extension_while_suspended_counts_after_resumption(es: Calendar) -> None:
    stopped, _ = suspend(_esic(es), es, at=at(3, 5), reason="complement", actor="u-1")
    stopped, audit = extend(stopped, es, justification="volume", actor="u-2", at=at(3, 8))
    assert (stopped.due, audit.remaining_units) == (None, 26)
    running, _ = resume(stopped, es, at=at(3, 15), actor="u-1")
    # 15 Mar + 26 days = Saturday 10 Apr, so Monday 12 Apr.
    assert running.due == end_of(4, 12)


def test_a_decreed_closure_moves_an_open_deadline_and_reports_the_version(es: Calendar) -> None:
    rule = DeadlineRule(unit="business_days", days=5)
    deadline = start_deadline(rule, es, at(12, 20))  # Monday 20 Dec 2027 -> Monday 27 Dec
    assert deadline.due == end_of(12, 27)
    closure = DatedHoliday(name="Ponto facultativo decretado", on=date(2027, 12, 24))
    when = at(12, 21, 16)
    spec_v2, change = revise(es.spec, add_closed=[closure], reason="decree", actor="adm", at=when)
    v2 = Calendar.from_spec(spec_v2)

    moved, audit = recompute(deadline, v2, at=when, actor="adm")
    assert moved.due == end_of(12, 28)
    assert (moved.calendar_version, moved.calendar_checksum) == (2, change.checksum_after)
    assert (audit.action, audit.calendar_version_before, audit.calendar_version_after) == (
        "recomputed",
        1,
        2,
    )
    assert (audit.due_before, audit.due_after) == (end_of(12, 27), end_of(12, 28))


def test_an_event_on_a_newer_calendar_recomputes_first(es: Calendar) -> None:
    closure = DatedHoliday(name="Decreed", on=date(2027, 3, 31))
    spec_v2, _ = revise(es.spec, add_closed=[closure], reason="decree", actor="adm", at=at(3, 2))
    v2 = Calendar.from_spec(spec_v2)
    extended, audit = extend(_esic(es), v2, justification="volume", actor="u-9", at=at(3, 20))
    assert extended.due == end_of(4, 1)  # 31 Mar is now closed
    assert (audit.calendar_version_before, audit.calendar_version_after) == (1, 2)


def test_an_older_calendar_version_is_refused(es: Calendar) -> None:
    closure = DatedHoliday(name="Decreed", on=date(2027, 3, 31))
    spec_v2, _ = revise(es.spec, add_closed=[closure], reason="decree", actor="adm", at=at(3, 2))
    on_v2, _ = recompute(_esic(es), Calendar.from_spec(spec_v2), at=at(3, 2), actor="adm")
    with pytest.raises(CalendarMismatch):
        suspend(on_v2, es, at=at(3, 5), reason="complement", actor="u-1")


def test_another_calendar_is_refused(es: Calendar, vitoria: Calendar) -> None:
    with pytest.raises(CalendarMismatch):
        extend(_esic(es), vitoria, justification="volume", actor="u-9", at=at(3, 20))


def _lived(calendar: Calendar) -> Deadline:
    deadline = _esic(calendar)
    deadline, _ = suspend(deadline, calendar, at=at(3, 5, 15), reason="complement", actor="u-1")
    deadline, _ = resume(deadline, calendar, at=at(3, 15, 9), actor="u-1")
    deadline, _ = extend(deadline, calendar, justification="volume", actor="u-2", at=at(3, 30))
    deadline, _ = suspend(deadline, calendar, at=at(4, 2), reason="complement", actor="u-1")
    deadline, _ = resume(deadline, calendar, at=at(4, 6), actor="u-1")
    return deadline


def test_replaying_the_events_rebuilds_the_same_deadline(vitoria: Calendar) -> None:
    deadline = _lived(vitoria)
    # 31 Mar + 10 = 10 Apr (Sat); 3-6 Apr given back: 6 Apr + 8 days = Wednesday 14 Apr.
    assert deadline.due == end_of(4, 14)
    assert replay(ESIC_REQUEST, vitoria, at(3, 1, 10), deadline.events) == deadline


def test_replaying_a_stored_deadline_rebuilds_the_same_due_date(vitoria: Calendar) -> None:
    stored = msgspec.json.decode(msgspec.json.encode(_lived(vitoria)), type=Deadline)
    assert stored.started_at is not None
    rebuilt = replay(stored.rule, vitoria, stored.started_at, stored.events)
    assert rebuilt == stored
    assert rebuilt.due == end_of(4, 14)


def test_remaining_counts_down_to_zero_then_goes_negative(es: Calendar) -> None:
    deadline = _esic(es)
    assert remaining(deadline, es, at(3, 1, 11)) == 21
    assert remaining(deadline, es, at(3, 22, 9)) == 0
    assert remaining(deadline, es, at(3, 24, 9)) == -2


def test_is_overdue_only_after_the_last_second_of_the_final_day(es: Calendar) -> None:
    deadline = _esic(es)
    assert not is_overdue(deadline, end_of(3, 22))
    assert is_overdue(deadline, datetime(2027, 3, 23, 0, 0, 0, tzinfo=SP))


def test_a_suspended_deadline_is_never_overdue(es: Calendar) -> None:
    stopped, _ = suspend(_esic(es), es, at=at(3, 20), reason="complement", actor="u-1")
    assert not is_overdue(stopped, at(5, 1))


def test_a_deadline_starting_in_the_future_can_be_suspended_and_gives_back_the_wait(
    es: Calendar,
) -> None:
    # The e-SIC extension counts ten days from the due day in force (Monday 22 Mar), so its
    # deadline starts then: suspended on Friday 12 Mar, the ten days from 12 to 22 Mar are
    # still owed with the extension's ten; resumed on Monday 15 Mar, 20 days from then is
    # Sunday 4 Apr; Monday 5 Apr is Nossa Senhora da Penha in Espírito Santo: Tuesday 6 Apr.
    extension = start_deadline(DeadlineRule(unit="calendar_days", days=10), es, end_of(3, 22))
    assert extension.due == end_of(4, 1)
    stopped, _ = suspend(extension, es, at=at(3, 12, 15), reason="complement", actor="u-1")
    assert remaining(stopped, es, at(3, 13)) == 20
    running, _ = resume(stopped, es, at=at(3, 15, 9), actor="u-1")
    assert running.due == end_of(4, 6)
    assert replay(extension.rule, es, end_of(3, 22), running.events) == running
    with pytest.raises(DeadlineInputInvalid):
        resume(stopped, es, at=at(3, 12, 14), actor="u-1")


def test_resuming_a_future_deadline_on_the_day_of_its_suspension_keeps_its_due_date(
    es: Calendar,
) -> None:
    extension = start_deadline(DeadlineRule(unit="calendar_days", days=10), es, end_of(3, 22))
    stopped, _ = suspend(extension, es, at=at(3, 12, 9), reason="complement", actor="u-1")
    running, _ = resume(stopped, es, at=at(3, 12, 17), actor="u-1")
    assert running.due == extension.due
