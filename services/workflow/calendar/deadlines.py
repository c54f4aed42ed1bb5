"""The deadline state machine: pure functions from (deadline, event, calendar) to a new deadline.

The model is a day budget. ``budget`` is the rule's days plus every extension. Each running
period — from the start (or a resumption) to a suspension — consumes the units it contains,
counted with the start day excluded and the end day included. While running, the final day is
``anchor + (budget - consumed)`` units, moved forward to a business day; ``due`` is 23:59:59
local time of that day. Suspended days consume nothing: the clock restarts from the resumption
date with whatever was left. See ``docs/deadlines.md`` for the rules and their legal basis.

Every public transition applies exactly the step that :func:`replay` applies, so replaying the
recorded events always rebuilds the stored deadline. Policy checks that depend on when the
request was made (an extension must come before the deadline expires) run only on the live
call, never on replay: an accepted event stays accepted.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime

import msgspec

from contracts.errors import FieldError

from .errors import (
    CalendarMismatch,
    DeadlineInputInvalid,
    DeadlineStateInvalid,
    ExtensionRefused,
)
from .model import (
    AuditAction,
    Deadline,
    DeadlineAudit,
    DeadlineEvent,
    DeadlineRule,
    Extension,
    Resumption,
    Suspension,
    validate_rule,
)
from .workdays import Calendar, require_aware

_MAX_TEXT = 4000


# -- counting -------------------------------------------------------------------------------


def _units(rule: DeadlineRule, calendar: Calendar, start: date, end: date) -> int:
    """Units in ``(start, end]``; zero when ``end <= start``."""
    if rule.unit == "business_days":
        return calendar.business_days_between(start, end)
    return max(0, (end - start).days)


def _final_day(deadline: Deadline, calendar: Calendar) -> date:
    left = max(0, deadline.budget - deadline.consumed)
    if deadline.rule.unit == "business_days":
        return calendar.add_business_days(deadline.anchor, left)
    return calendar.add_calendar_days(deadline.anchor, left)


def _settle(deadline: Deadline, calendar: Calendar, **changes: object) -> Deadline:
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
    return msgspec.structs.replace(updated, due=calendar.end_of_day(_final_day(updated, calendar)))


# -- checks shared by live calls and replay ---------------------------------------------------


def _require_text(value: str, path: str, errors: list[FieldError]) -> None:
    if not value.strip():
        errors.append(FieldError(path=path, code="required", message="This cannot be blank."))
    elif len(value) > _MAX_TEXT:
        errors.append(FieldError(path=path, code="too_long", message="At most 4000 characters."))


def _check_time(
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


def _extension_problems(deadline: Deadline, event: Extension) -> list[FieldError]:
    errors: list[FieldError] = []
    _require_text(event.justification, "justification", errors)
    _require_text(event.actor, "actor", errors)
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


def _apply_extension(deadline: Deadline, event: Extension, calendar: Calendar) -> Deadline:
    _check_time(deadline, event.at, calendar)
    errors = _extension_problems(deadline, event)
    if errors:
        raise ExtensionRefused(errors=errors, used=deadline.extensions_used)
    return _settle(
        deadline,
        calendar,
        budget=deadline.budget + event.days,
        events=(*deadline.events, event),
    )


def _apply_suspension(deadline: Deadline, event: Suspension, calendar: Calendar) -> Deadline:
    if deadline.status != "running":
        raise DeadlineStateInvalid(
            "Only a running deadline can be suspended.", deadline_status=deadline.status
        )
    _check_time(deadline, event.at, calendar, before_start=True)
    errors: list[FieldError] = []
    _require_text(event.reason, "reason", errors)
    _require_text(event.actor, "actor", errors)
    if event.legal_basis is not None:
        _require_text(event.legal_basis, "legal_basis", errors)
    if errors:
        raise DeadlineInputInvalid(errors=errors)
    stopped_on = calendar.local_date(event.at)
    # Stopped before its anchor (a deadline that starts in the future): the units from the
    # stop to the anchor were not used either, so they are given back on resumption.
    used = _units(deadline.rule, calendar, deadline.anchor, stopped_on) - _units(
        deadline.rule, calendar, stopped_on, deadline.anchor
    )
    return _settle(
        deadline,
        calendar,
        status="suspended",
        consumed=deadline.consumed + used,
        anchor=stopped_on,
        suspended_at=event.at,
        events=(*deadline.events, event),
    )


def _apply_resumption(deadline: Deadline, event: Resumption, calendar: Calendar) -> Deadline:
    if deadline.status != "suspended":
        raise DeadlineStateInvalid(
            "Only a suspended deadline can be resumed.", deadline_status=deadline.status
        )
    _check_time(deadline, event.at, calendar, before_start=True)
    errors: list[FieldError] = []
    _require_text(event.actor, "actor", errors)
    if errors:
        raise DeadlineInputInvalid(errors=errors)
    return _settle(
        deadline,
        calendar,
        status="running",
        anchor=calendar.local_date(event.at),
        suspended_at=None,
        events=(*deadline.events, event),
    )


def _apply(deadline: Deadline, event: DeadlineEvent, calendar: Calendar) -> Deadline:
    if isinstance(event, Extension):
        return _apply_extension(deadline, event, calendar)
    if isinstance(event, Suspension):
        return _apply_suspension(deadline, event, calendar)
    return _apply_resumption(deadline, event, calendar)


def _check_calendar(deadline: Deadline, calendar: Calendar) -> None:
    if calendar.key != deadline.calendar_key:
        raise CalendarMismatch(
            "The calendar is not the one this deadline counts with.",
            expected_key=deadline.calendar_key,
            given_key=calendar.key,
        )
    if calendar.version < deadline.calendar_version or (
        calendar.version == deadline.calendar_version
        and calendar.checksum != deadline.calendar_checksum
    ):
        raise CalendarMismatch(
            "The calendar is older than, or differs from, the version this deadline used.",
            calendar_key=calendar.key,
            used_version=deadline.calendar_version,
            given_version=calendar.version,
        )


def _on_calendar(deadline: Deadline, calendar: Calendar) -> Deadline:
    """The deadline computed with ``calendar``: itself if already, else replayed on it."""
    _check_calendar(deadline, calendar)
    if calendar.version == deadline.calendar_version:
        return deadline
    return _replay_from(deadline, calendar)


def _replay_from(deadline: Deadline, calendar: Calendar) -> Deadline:
    started: date | datetime = deadline.started_at or deadline.started_on
    return replay(deadline.rule, calendar, started, deadline.events)


def _audit(
    action: AuditAction,
    before: Deadline,
    after: Deadline,
    calendar: Calendar,
    event: DeadlineEvent,
    *,
    reason: str | None,
) -> DeadlineAudit:
    return DeadlineAudit(
        action=action,
        actor=event.actor,
        at=event.at,
        reason=reason,
        due_before=before.due,
        due_after=after.due,
        calendar_key=after.calendar_key,
        calendar_version_before=before.calendar_version,
        calendar_version_after=after.calendar_version,
        remaining_units=remaining(after, calendar, event.at),
        extension_days=event.days if isinstance(event, Extension) else None,
        legal_basis=event.legal_basis if isinstance(event, Suspension) else None,
    )


# -- public API ------------------------------------------------------------------------------


def start_deadline(rule: DeadlineRule, calendar: Calendar, started_at: date | datetime) -> Deadline:
    """Start counting. ``started_at`` (a date, or an aware instant) is day zero, not counted."""
    validate_rule(rule)
    if isinstance(started_at, datetime):
        require_aware(started_at, "started_at")
        started_on, instant = calendar.local_date(started_at), started_at
    else:
        started_on, instant = started_at, None
    fresh = Deadline(
        rule=rule,
        started_on=started_on,
        started_at=instant,
        calendar_key=calendar.key,
        calendar_version=calendar.version,
        calendar_checksum=calendar.checksum,
        status="running",
        due=None,
        budget=rule.days,
        consumed=0,
        anchor=started_on,
    )
    return _settle(fresh, calendar)


def extend(
    deadline: Deadline, calendar: Calendar, *, justification: str, actor: str, at: datetime
) -> tuple[Deadline, DeadlineAudit]:
    """Add the rule's ``extension_days`` (prorrogação), with a justification, before expiry.

    Refused (:class:`ExtensionRefused`, every problem at once) when the justification is
    blank, the rule's ``max_extensions`` are used up, or ``at`` is after ``due``.
    """
    require_aware(at, "at")
    base = _on_calendar(deadline, calendar)
    event = Extension(
        days=base.rule.extension_days, justification=justification.strip(), actor=actor, at=at
    )
    errors = _extension_problems(base, event)
    if base.due is not None and at > base.due:
        errors.append(
            FieldError(
                path="at",
                code="expired",
                message="An extension must be decided before the deadline expires.",
            )
        )
    if errors:
        raise ExtensionRefused(errors=errors, used=base.extensions_used)
    after = _apply_extension(base, event, calendar)
    return after, _audit("extended", deadline, after, calendar, event, reason=event.justification)


def suspend(
    deadline: Deadline,
    calendar: Calendar,
    *,
    at: datetime,
    reason: str,
    actor: str,
    legal_basis: str | None = None,
) -> tuple[Deadline, DeadlineAudit]:
    """Stop the clock at ``at``; the days up to and including that local date are used.

    ``legal_basis`` (the article that allows the suspension) is kept with the event; when
    given it must not be blank."""
    require_aware(at, "at")
    base = _on_calendar(deadline, calendar)
    if base.due is not None and at > base.due:
        raise DeadlineStateInvalid(
            "An expired deadline cannot be suspended.", deadline_status="expired"
        )
    basis = None if legal_basis is None else legal_basis.strip()
    event = Suspension(at=at, reason=reason.strip(), actor=actor, legal_basis=basis)
    after = _apply_suspension(base, event, calendar)
    return after, _audit("suspended", deadline, after, calendar, event, reason=event.reason)


def resume(
    deadline: Deadline, calendar: Calendar, *, at: datetime, actor: str
) -> tuple[Deadline, DeadlineAudit]:
    """Restart the clock: what was left is counted again from the local date of ``at``."""
    require_aware(at, "at")
    base = _on_calendar(deadline, calendar)
    event = Resumption(at=at, actor=actor)
    after = _apply_resumption(base, event, calendar)
    return after, _audit("resumed", deadline, after, calendar, event, reason=None)


def recompute(
    deadline: Deadline,
    calendar: Calendar,
    *,
    at: datetime,
    actor: str,
    reason: str = "calendar revision",
) -> tuple[Deadline, DeadlineAudit]:
    """Replay the deadline on ``calendar`` (same key, same or newer version) and audit it.

    The returned deadline names the calendar version it now uses; the audit shows both
    versions and both due dates.
    """
    require_aware(at, "at")
    _check_calendar(deadline, calendar)
    after = _replay_from(deadline, calendar)
    audit = DeadlineAudit(
        action="recomputed",
        actor=actor,
        at=at,
        reason=reason,
        due_before=deadline.due,
        due_after=after.due,
        calendar_key=after.calendar_key,
        calendar_version_before=deadline.calendar_version,
        calendar_version_after=after.calendar_version,
        remaining_units=remaining(after, calendar, at),
    )
    return after, audit


def replay(
    rule: DeadlineRule,
    calendar: Calendar,
    started_at: date | datetime,
    events: Iterable[DeadlineEvent],
) -> Deadline:
    """Rebuild a deadline from its start and its recorded events, on ``calendar``."""
    deadline = start_deadline(rule, calendar, started_at)
    for event in events:
        deadline = _apply(deadline, event, calendar)
    return deadline


def remaining(deadline: Deadline, calendar: Calendar, now: datetime) -> int:
    """Units (the rule's) left at ``now``.

    Running: units in ``(today, final day]`` — 0 on the final day, negative once overdue
    (how many units past it). Suspended: the unused budget, which is what the clock will count
    from the resumption date.
    """
    require_aware(now, "now")
    current = _on_calendar(deadline, calendar)
    if current.status == "suspended" or current.due is None:
        return max(0, current.budget - current.consumed)
    today = calendar.local_date(now)
    final = calendar.local_date(current.due)
    if today <= final:
        return _units(current.rule, calendar, today, final)
    return -_units(current.rule, calendar, final, today)


def is_overdue(deadline: Deadline, now: datetime) -> bool:
    """True once ``now`` is past ``due`` of a running deadline (never while suspended)."""
    require_aware(now, "now")
    return deadline.status == "running" and deadline.due is not None and now > deadline.due
