"""The deadline state machine's steps: counting units, checking an event, applying it.

Each ``apply_*`` takes a deadline, one recorded event and the calendar and returns the new
deadline; live calls and replay (``deadlines``) apply exactly these, so replaying the events
always rebuilds the stored deadline. Pure functions, as the rest of the package.
"""

from __future__ import annotations

from datetime import date, datetime

import msgspec

from contracts.errors import FieldError

from .errors import (
    DeadlineInputInvalid,
    DeadlineStateInvalid,
    ExtensionRefused,
)
from .model import (
    Deadline,
    DeadlineEvent,
    DeadlineRule,
    Extension,
    Resumption,
    Suspension,
)
from .workdays import Calendar, require_aware

MAX_TEXT = 4000


# -- counting -------------------------------------------------------------------------------


def units(rule: DeadlineRule, calendar: Calendar, start: date, end: date) -> int:
    """Units in ``(start, end]``; zero when ``end <= start``."""
    if rule.unit == "business_days":
        return calendar.business_days_between(start, end)
    return max(0, (end - start).days)


def final_day(deadline: Deadline, calendar: Calendar) -> date:
    left = max(0, deadline.budget - deadline.consumed)
    if deadline.rule.unit == "business_days":
        return calendar.add_business_days(deadline.anchor, left)
    return calendar.add_calendar_days(deadline.anchor, left)


def settle(deadline: Deadline, calendar: Calendar, **changes: object) -> Deadline:
    """Apply ``changes``, stamp the calendar used and recompute ``due``."""
    updated = msgspec.structs.replace(
        deadline,
        calendar_key=calendar.key,
        calendar_version=calendar.version,
        calendar_checksum=calendar.checksum,
        **changes,
    )
    if updated.status == "suspended":
        return msgspec.structs.replace(updated, due=None)
    return msgspec.structs.replace(updated, due=calendar.end_of_day(final_day(updated, calendar)))


# -- checks shared by live calls and replay ---------------------------------------------------


def require_text(value: str, path: str, errors: list[FieldError]) -> None:
    if not value.strip():
        errors.append(FieldError(path=path, code="required", message="This cannot be blank."))
    elif len(value) > MAX_TEXT:
        errors.append(FieldError(path=path, code="too_long", message="At most 4000 characters."))


def check_time(
    deadline: Deadline, at: datetime, calendar: Calendar, *, before_start: bool = False
) -> None:
    """``at`` follows the previous event. ``before_start``: a suspension or resumption may
    come before the start of a deadline that starts in the future (an extension counted from
    the due day in force), after its own previous events."""
    require_aware(at, "at")
    last = deadline.events[-1].at if before_start and deadline.events else None
    if not before_start:
        last = deadline.last_event_at
    if last is not None and at < last:
        raise DeadlineInputInvalid("An event cannot be older than the previous one.", field="at")
    if not before_start and calendar.local_date(at) < deadline.started_on:
        raise DeadlineInputInvalid("An event cannot precede the deadline's start.", field="at")


def extension_problems(deadline: Deadline, event: Extension) -> list[FieldError]:
    errors: list[FieldError] = []
    require_text(event.justification, "justification", errors)
    require_text(event.actor, "actor", errors)
    rule = deadline.rule
    if deadline.extensions_used >= rule.max_extensions:
        errors.append(
            FieldError(
                path="extensions",
                code="limit_reached",
                message=f"This deadline allows {rule.max_extensions} extension(s).",
            )
        )
    if event.days != rule.extension_days:
        errors.append(
            FieldError(path="days", code="mismatch", message="Extensions add the rule's days.")
        )
    return errors


# -- steps (identical for live calls and replay) ----------------------------------------------


def apply_extension(deadline: Deadline, event: Extension, calendar: Calendar) -> Deadline:
    check_time(deadline, event.at, calendar)
    errors = extension_problems(deadline, event)
    if errors:
        raise ExtensionRefused(errors=errors, used=deadline.extensions_used)
    return settle(
        deadline,
        calendar,
        budget=deadline.budget + event.days,
        events=(*deadline.events, event),
    )


def apply_suspension(deadline: Deadline, event: Suspension, calendar: Calendar) -> Deadline:
    if deadline.status != "running":
        raise DeadlineStateInvalid(
            "Only a running deadline can be suspended.", deadline_status=deadline.status
        )
    check_time(deadline, event.at, calendar, before_start=True)
    errors: list[FieldError] = []
    require_text(event.reason, "reason", errors)
    require_text(event.actor, "actor", errors)
    if event.legal_basis is not None:
        require_text(event.legal_basis, "legal_basis", errors)
    if errors:
        raise DeadlineInputInvalid(errors=errors)
    stopped_on = calendar.local_date(event.at)
    # Stopped before its anchor (a deadline that starts in the future): the units from the
    # stop to the anchor were not used either, so they are given back on resumption.
    used = units(deadline.rule, calendar, deadline.anchor, stopped_on) - units(
        deadline.rule, calendar, stopped_on, deadline.anchor
    )
    return settle(
        deadline,
        calendar,
        status="suspended",
        consumed=deadline.consumed + used,
        anchor=stopped_on,
        suspended_at=event.at,
        events=(*deadline.events, event),
    )


def apply_resumption(deadline: Deadline, event: Resumption, calendar: Calendar) -> Deadline:
    if deadline.status != "suspended":
        raise DeadlineStateInvalid(
            "Only a suspended deadline can be resumed.", deadline_status=deadline.status
        )
    check_time(deadline, event.at, calendar, before_start=True)
    errors: list[FieldError] = []
    require_text(event.actor, "actor", errors)
    if errors:
        raise DeadlineInputInvalid(errors=errors)
    return settle(
        deadline,
        calendar,
        status="running",
        anchor=calendar.local_date(event.at),
        suspended_at=None,
        events=(*deadline.events, event),
    )


def apply_event(deadline: Deadline, event: DeadlineEvent, calendar: Calendar) -> Deadline:
    if isinstance(event, Extension):
        return apply_extension(deadline, event, calendar)
    if isinstance(event, Suspension):
        return apply_suspension(deadline, event, calendar)
    return apply_resumption(deadline, event, calendar)
