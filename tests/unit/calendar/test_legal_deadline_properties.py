"""Properties of business-day arithmetic and of replay, over generated dates and event logs."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from services.workflow.calendar import (
    AnnualHoliday,
    Calendar,
    CalendarSpec,
    DatedHoliday,
    Deadline,
    DeadlineRule,
    DeadlineStateInvalid,
    ExtensionRefused,
    extend,
    replay,
    resume,
    seal_spec,
    start_deadline,
    suspend,
)

SP = ZoneInfo("America/Sao_Paulo")
CALENDAR = Calendar.from_spec(
    seal_spec(
        CalendarSpec(
            key="br-es-vitoria",
            version=1,
            subdivision="ES",
            municipal_holidays=(AnnualHoliday(name="Aniversário de Vitória", month=9, day=8),),
            facultative=("Carnival", "Christmas Eve"),
            extra_closed=(DatedHoliday(name="Decreed", on=date(2027, 6, 11)),),
        )
    )
)
days = st.dates(min_value=date(2020, 1, 1), max_value=date(2035, 12, 31))
counts = st.integers(min_value=0, max_value=120)


@settings(deadline=None)
@given(start=days, n=counts)
def test_adding_business_days_always_lands_on_a_business_day(start: date, n: int) -> None:
    assert CALENDAR.is_business_day(CALENDAR.add_business_days(start, n))


@settings(deadline=None)
@given(start=days, n=counts, more=st.integers(min_value=1, max_value=30))
def test_adding_more_business_days_never_ends_earlier(start: date, n: int, more: int) -> None:
    shorter = CALENDAR.add_business_days(start, n)
    longer = CALENDAR.add_business_days(start, n + more)
    assert shorter < longer if n >= 1 else shorter <= longer


@settings(deadline=None)
@given(start=days, later=st.integers(min_value=0, max_value=40), n=counts)
def test_a_later_start_never_ends_earlier(start: date, later: int, n: int) -> None:
    other = start + timedelta(days=later)
    assert CALENDAR.add_business_days(start, n) <= CALENDAR.add_business_days(other, n)


@settings(deadline=None)
@given(start=days, n=st.integers(min_value=1, max_value=120))
def test_counting_business_days_inverts_adding_them(start: date, n: int) -> None:
    assert CALENDAR.business_days_between(start, CALENDAR.add_business_days(start, n)) == n


@settings(deadline=None)
@given(start=days, n=counts)
def test_calendar_days_end_on_the_first_business_day_from_the_nominal_end(
    start: date, n: int
) -> None:
    nominal = start + timedelta(days=n)
    end = CALENDAR.add_calendar_days(start, n)
    assert end >= nominal
    assert CALENDAR.is_business_day(end)
    assert all(
        not CALENDAR.is_business_day(nominal + timedelta(days=k))
        for k in range(0, (end - nominal).days)
    )


rules = st.builds(
    DeadlineRule,
    unit=st.sampled_from(["calendar_days", "business_days"]),
    days=st.integers(min_value=1, max_value=40),
    max_extensions=st.integers(min_value=0, max_value=2),
    extension_days=st.integers(min_value=1, max_value=30),
)
# Each step: extend (True) or change state (False: suspend if running, resume if suspended),
# a number of hours after the previous step. Choosing by state keeps most steps accepted.
steps = st.lists(
    st.tuples(st.booleans(), st.integers(min_value=0, max_value=24 * 10)),
    max_size=8,
)


def _step(deadline: Deadline, extend_it: bool, moment: datetime) -> Deadline:
    if extend_it:
        return extend(deadline, CALENDAR, justification="volume", actor="u-1", at=moment)[0]
    if deadline.status == "running":
        return suspend(deadline, CALENDAR, at=moment, reason="complement", actor="u-1")[0]
    return resume(deadline, CALENDAR, at=moment, actor="u-1")[0]


@settings(deadline=None)
@given(rule=rules, start=days, steps=steps)
def test_replay_equals_incremental(
    rule: DeadlineRule, start: date, steps: list[tuple[bool, int]]
) -> None:
    started_at = datetime.combine(start, time(9), tzinfo=SP)
    deadline = start_deadline(rule, CALENDAR, started_at)
    moment = started_at
    for extend_it, hours in steps:
        moment += timedelta(hours=hours)
        try:
            deadline = _step(deadline, extend_it, moment)
        except (ExtensionRefused, DeadlineStateInvalid):
            continue  # refused (limit reached, or expired): nothing is recorded
    assert replay(rule, CALENDAR, started_at, deadline.events) == deadline
    if deadline.due is not None:
        assert CALENDAR.is_business_day(CALENDAR.local_date(deadline.due))
