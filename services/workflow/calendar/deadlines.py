"""The deadline state machine: pure functions from (deadline, event, calendar) to a new deadline.

The model is a day budget. ``budget`` is the rule's days plus every extension. Each running
period — from the start (or a resumption) to a suspension — consumes the units it contains,
counted with the start day excluded and the end day included. While running, the final day is
``anchor + (budget - consumed)`` units, moved forward to a business day; ``due`` is 23:59:59
local time of that day. Suspended days consume nothing: the clock restarts from the resumption
date with whatever was left. See ``docs/deadlines.md`` for the rules and their legal basis.

Every public transition applies exactly the step (``deadline_steps``) that :func:`replay`
applies, so replaying the recorded events always rebuilds the stored deadline. Policy checks
that depend on when the request was made (an extension must come before the deadline expires)
run only on the live call, never on replay: an accepted event stays accepted.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime

from contracts.errors import FieldError

from .deadline_steps import (
    apply_event,
    apply_extension,
    apply_resumption,
    apply_suspension,
    extension_problems,
    settle,
    units,
)
from .errors import (
    CalendarMismatch,
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
    return settle(fresh, calendar)


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
    errors = extension_problems(base, event)
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
    after = apply_extension(base, event, calendar)
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
    after = apply_suspension(base, event, calendar)
    return after, _audit("suspended", deadline, after, calendar, event, reason=event.reason)


def resume(
    deadline: Deadline, calendar: Calendar, *, at: datetime, actor: str
) -> tuple[Deadline, DeadlineAudit]:
    """Restart the clock: what was left is counted again from the local date of ``at``."""
    require_aware(at, "at")
    base = _on_calendar(deadline, calendar)
    event = Resumption(at=at, actor=actor)
    after = apply_resumption(base, event, calendar)
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
        deadline = apply_event(deadline, event, calendar)
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
        return units(current.rule, calendar, today, final)
    return -units(current.rule, calendar, final, today)


def is_overdue(deadline: Deadline, now: datetime) -> bool:
    """True once ``now`` is past ``due`` of a running deadline (never while suspended)."""
    require_aware(now, "now")
    return deadline.status == "running" and deadline.due is not None and now > deadline.due
