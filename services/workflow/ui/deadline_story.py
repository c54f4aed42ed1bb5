"""Every deadline explains itself (issue #19 item 5): start, receipt, nominal end, and what
moved it — a weekend, which holiday, a suspension of N days, an extension and its
justification — shaped for ``_deadline_explain.html`` on the task, instance and citizen pages.

The facts come from what the engine stored: the counted deadline kept with each timer (its
audit entry: filing, receipt, start, nominal end, the closed days that moved it) and, where the
deadline is tracked, its events (extensions with their justification, suspensions and
resumptions). For the citizen (``public=True``) the internal text is left out: no suspension
reason (it may name people) and no legal-basis wording beyond the rule's name. An extension's
justification stays: the requester is told it (Lei 12.527/2011, art. 11, § 2º).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

import msgspec

from services.workflow.calendar import Calendar, Extension, Resumption, Suspension
from services.workflow.calendar.legal import WEEKEND
from services.workflow.runtime.ports.deadlines import DeadlineView
from services.workflow.runtime.services.legal_time import CountedDeadline


class ClosedDay(msgspec.Struct, frozen=True, kw_only=True):
    day: date
    weekend: bool
    holidays: tuple[str, ...]


class Pause(msgspec.Struct, frozen=True, kw_only=True):
    since: date
    until: date | None
    days: int | None
    reason: str | None


class Prorogation(msgspec.Struct, frozen=True, kw_only=True):
    days: int
    on: date
    justification: str | None


class DeadlineStory(msgspec.Struct, frozen=True, kw_only=True):
    rule_name: str
    legal_basis: str | None
    business: bool
    days: int
    filed_at: datetime | None
    received_on: date | None
    receipt_moved: str | None
    """``after_cutoff``, ``closed_day`` or ``None`` (received the day it was filed)."""
    start_on: date
    nominal_end: date
    rolled: bool
    """The count ended on a day without office hours and moved to the next business day."""
    due_on: date
    due_at: datetime
    moved: tuple[ClosedDay, ...]
    extends: date | None
    extensions: tuple[Prorogation, ...]
    pauses: tuple[Pause, ...]


def _closed(moved: Sequence[dict[str, object]]) -> tuple[ClosedDay, ...]:
    days = []
    for m in moved:
        why = tuple(str(w) for w in m.get("why") or ())  # type: ignore[attr-defined]
        days.append(
            ClosedDay(
                day=date.fromisoformat(str(m["day"])),
                weekend=WEEKEND in why,
                holidays=tuple(w for w in why if w != WEEKEND),
            )
        )
    return tuple(days)


def _receipt(counted: CountedDeadline, calendar: Calendar) -> str | None:
    if counted.filed_at is None or counted.received_on is None:
        return None
    filed_on = calendar.local_date(counted.filed_at)
    if counted.received_on == filed_on:
        return None
    return "after_cutoff" if calendar.is_business_day(filed_on) else "closed_day"


def _events(
    view: DeadlineView | None, calendar: Calendar, public: bool
) -> tuple[tuple[Prorogation, ...], tuple[Pause, ...]]:
    if view is None:
        return (), ()
    extensions: list[Prorogation] = []
    pauses: list[Pause] = []
    for event in view.events:
        if isinstance(event, Extension):
            extensions.append(
                Prorogation(
                    days=event.days,
                    on=calendar.local_date(event.at),
                    justification=event.justification,
                )
            )
        elif isinstance(event, Suspension):
            pauses.append(
                Pause(
                    since=calendar.local_date(event.at),
                    until=None,
                    days=None,
                    reason=None if public else event.reason,
                )
            )
        elif isinstance(event, Resumption) and pauses and pauses[-1].until is None:
            last = pauses[-1]
            until = calendar.local_date(event.at)
            pauses[-1] = Pause(
                since=last.since, until=until, days=(until - last.since).days, reason=last.reason
            )
    return tuple(extensions), tuple(pauses)


def stories(
    counted: Sequence[CountedDeadline],
    tracked: Sequence[DeadlineView],
    calendar: Calendar,
    *,
    public: bool = False,
) -> list[DeadlineStory]:
    """One story per counted deadline, oldest first; a tracked deadline's extensions and
    pauses go with the last deadline counted for the same timer (the one in force)."""
    by_name = {v.name: v for v in tracked}
    # An extension already granted adds nothing (``days == 0``): the deadline in force is told.
    counted = [c for c in counted if c.extends is None or c.days > 0]
    last_of: dict[str, int] = {c.timer: n for n, c in enumerate(counted)}
    told = []
    for n, c in enumerate(counted):
        view = by_name.get(c.timer) if last_of[c.timer] == n else None
        extensions, pauses = _events(view, calendar, public)
        if c.justification is not None:  # granted by a person (``tramita deadline extend``)
            decided = calendar.local_date(c.decided_at) if c.decided_at else c.extends
            assert decided is not None  # a justified count is an extension
            granted = Prorogation(days=c.days, on=decided, justification=c.justification)
            extensions = (granted, *extensions)
        due_at = view.due_at if view is not None and view.due_at else c.due_at
        told.append(
            DeadlineStory(
                rule_name=c.rule_name,
                legal_basis=None if public else c.legal_basis,
                business=c.counting == "business",
                days=c.days,
                filed_at=c.filed_at,
                received_on=c.received_on,
                receipt_moved=_receipt(c, calendar),
                start_on=c.start_on,
                nominal_end=c.nominal_end,
                rolled=c.nominal_end != c.due_on,
                due_on=calendar.local_date(due_at) if due_at != c.due_at else c.due_on,
                due_at=due_at,
                moved=_closed(c.moved),
                extends=c.extends,
                extensions=extensions,
                pauses=pauses,
            )
        )
    return told
