"""When an act is published: the cut-off and the publication days (pure, no database).

Editions come out on business days of the jurisdiction's calendar (Monday to Friday except
holidays and the optional days off it observes). An act enters the first edition whose
cut-off it met: by default 17:00 local of the business day before the edition's date.
The calendar comes through :mod:`contracts.calendar`; without the workflow service (plain
mode) the module falls back to Monday to Friday.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

from contracts.calendar import BUSINESS_DAYS_KEY, BusinessDays
from core.localtime import to_local, zone

DEFAULT_CUTOFF = time(17, 0)
_MAX_SCAN = 400  # days; a calendar closed longer than a year is broken


class Weekdays:
    """Plain mode's calendar: Monday to Friday, no holidays."""

    def is_business_day(self, day: date) -> bool:
        return day.weekday() < 5


def business_days(extras: dict[str, Any]) -> BusinessDays:
    found = extras.get(BUSINESS_DAYS_KEY)
    return found if found is not None else Weekdays()


def next_business_day(days: BusinessDays, day: date) -> date:
    """The first business day strictly after ``day``."""
    for step in range(1, _MAX_SCAN):
        candidate = day + timedelta(days=step)
        if days.is_business_day(candidate):
            return candidate
    raise ValueError("no business day in a year")


def previous_business_day(days: BusinessDays, day: date) -> date:
    for step in range(1, _MAX_SCAN):
        candidate = day - timedelta(days=step)
        if days.is_business_day(candidate):
            return candidate
    raise ValueError("no business day in a year")


def cutoff(
    days: BusinessDays, edition_day: date, zone_name: str, at: time = DEFAULT_CUTOFF
) -> datetime:
    """The last instant an act may be approved to enter the edition of ``edition_day``."""
    day = previous_business_day(days, edition_day)
    return datetime.combine(day, at, tzinfo=zone(zone_name))


def edition_day(
    days: BusinessDays, approved_at: datetime, zone_name: str, at: time = DEFAULT_CUTOFF
) -> date:
    """The date of the first regular edition an act approved at ``approved_at`` enters."""
    candidate = next_business_day(days, to_local(approved_at, zone_name).date())
    while approved_at > cutoff(days, candidate, zone_name, at):
        candidate = next_business_day(days, candidate)
    return candidate
