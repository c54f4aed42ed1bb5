"""Overdue and due-soon badges with business days left, on the Espírito Santo calendar."""

from __future__ import annotations

from datetime import UTC, date, datetime

from services.workflow.calendar import Calendar
from services.workflow.runtime.kernel.deadline_badges import DUE_SOON_BUSINESS_DAYS, badge

# Tuesday 1 December 2026, 10:00 in Brasília (13:00 UTC).
NOW = datetime(2026, 12, 1, 13, 0, tzinfo=UTC)


def _end_of(calendar: Calendar, day: date) -> datetime:
    return calendar.end_of_day(day)


def test_a_task_without_a_deadline_has_no_badge(es: Calendar) -> None:
    assert badge(None, NOW, es).state == "no_deadline"
    assert badge(None, NOW, es).business_days_left is None


def test_due_later_today_is_due_soon_with_zero_business_days_left(es: Calendar) -> None:
    b = badge(_end_of(es, date(2026, 12, 1)), NOW, es)
    assert (b.state, b.business_days_left, b.due_on) == ("due_soon", 0, date(2026, 12, 1))


def test_a_passed_instant_is_overdue_even_on_the_same_day(es: Calendar) -> None:
    b = badge(datetime(2026, 12, 1, 12, 0, tzinfo=UTC), NOW, es)
    assert (b.state, b.business_days_left) == ("overdue", 0)


def test_overdue_counts_the_business_days_late_as_negative(es: Calendar) -> None:
    # Due Thursday 26 Nov: Fri 27, Mon 30, Tue 1 Dec are three business days late.
    b = badge(_end_of(es, date(2026, 11, 26)), NOW, es)
    assert (b.state, b.business_days_left) == ("overdue", -3)


def test_weekends_do_not_count_as_days_left(es: Calendar) -> None:
    # Due Monday 7 Dec: Wed 2, Thu 3, Fri 4, Mon 7 — four business days, not six days.
    b = badge(_end_of(es, date(2026, 12, 7)), NOW, es)
    assert (b.state, b.business_days_left) == ("on_time", 4)


def test_the_due_soon_threshold_is_inclusive(es: Calendar) -> None:
    b = badge(_end_of(es, date(2026, 12, 4)), NOW, es)
    assert b.business_days_left == DUE_SOON_BUSINESS_DAYS
    assert b.state == "due_soon"


def test_a_national_holiday_is_not_a_business_day_left() -> None:
    from services.workflow.calendar import CalendarSpec, seal_spec

    calendar = Calendar.from_spec(seal_spec(CalendarSpec(key="br", version=1)))
    now = datetime(2026, 12, 22, 13, 0, tzinfo=UTC)  # Tuesday 22 Dec
    # Due Monday 28 Dec: Wed 23, Thu 24, (Fri 25 Christmas), Mon 28 — three business days.
    b = badge(calendar.end_of_day(date(2026, 12, 28)), now, calendar)
    assert b.business_days_left == 3


def test_the_local_day_decides_not_the_utc_day(es: Calendar) -> None:
    # 23:30 in Brasília on Tuesday is already Wednesday in UTC; a task due at the end of
    # Wednesday (local) still has one business day left.
    late_evening = datetime(2026, 12, 2, 2, 30, tzinfo=UTC)
    b = badge(_end_of(es, date(2026, 12, 2)), late_evening, es)
    assert (b.state, b.business_days_left) == ("due_soon", 1)
