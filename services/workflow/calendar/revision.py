"""Calendar revisions: a decreed closure (or its revocation) makes a new, audited version.

The old version is never edited. Deadlines keep the version they were computed with until the
engine recomputes them (:func:`~.deadlines.recompute`), so an audit can always say which
calendar produced a due date.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

import msgspec

from contracts.errors import FieldError

from .errors import CalendarRevisionInvalid
from .spec import CalendarSpec, DatedHoliday, seal_spec, verify_spec

CHANGE_FORMAT_VERSION = 1


class CalendarChange(msgspec.Struct, frozen=True, kw_only=True):
    """Audit record of one revision, ready for the audit table."""

    calendar_key: str
    version_before: int
    version_after: int
    checksum_before: str
    checksum_after: str
    added: tuple[DatedHoliday, ...]
    removed: tuple[date, ...]
    reason: str
    actor: str
    at: datetime
    format_version: int = CHANGE_FORMAT_VERSION


def _problems(
    spec: CalendarSpec,
    add_closed: Sequence[DatedHoliday],
    remove_closed: Sequence[date],
    reason: str,
    actor: str,
    at: datetime,
) -> list[FieldError]:
    errors: list[FieldError] = []
    if not reason.strip():
        errors.append(FieldError(path="reason", code="required", message="Say why."))
    if not actor.strip():
        errors.append(FieldError(path="actor", code="required", message="Say who."))
    if at.tzinfo is None or at.utcoffset() is None:
        errors.append(FieldError(path="at", code="naive", message="Give a time zone."))
    if not add_closed and not remove_closed:
        errors.append(FieldError(path="add_closed", code="empty", message="Nothing to change."))
    current = {item.on for item in spec.extra_closed}
    adding = [item.on for item in add_closed]
    for index, day in enumerate(adding):
        if day in current or adding.count(day) > 1:
            errors.append(
                FieldError(
                    path=f"add_closed[{index}]",
                    code="duplicate",
                    message="This date is already closed by the calendar or the revision.",
                )
            )
    for index, day in enumerate(remove_closed):
        if day not in current or list(remove_closed).count(day) > 1:
            errors.append(
                FieldError(
                    path=f"remove_closed[{index}]",
                    code="not_closed",
                    message="Only a date added as an extra closure can be removed, once.",
                )
            )
    return errors


def revise(
    spec: CalendarSpec,
    *,
    add_closed: Sequence[DatedHoliday] = (),
    remove_closed: Sequence[date] = (),
    reason: str,
    actor: str,
    at: datetime,
) -> tuple[CalendarSpec, CalendarChange]:
    """Return the next version of ``spec`` and the audit record of the change.

    Only ``extra_closed`` changes: national, state and configured municipal holidays are not
    revoked by a revision (that is a new spec, reviewed like any configuration change).
    A date may be added and another removed in the same revision; re-adding a date that is
    removed in the same call is refused as a duplicate to keep the record unambiguous.
    """
    verify_spec(spec)
    errors = _problems(spec, add_closed, remove_closed, reason, actor, at)
    if errors:
        raise CalendarRevisionInvalid(errors=errors, calendar_key=spec.key, version=spec.version)
    removed = set(remove_closed)
    kept = tuple(item for item in spec.extra_closed if item.on not in removed)
    closed = tuple(sorted((*kept, *add_closed), key=lambda item: item.on))
    new_spec = seal_spec(
        msgspec.structs.replace(spec, version=spec.version + 1, extra_closed=closed, checksum="")
    )
    change = CalendarChange(
        calendar_key=spec.key,
        version_before=spec.version,
        version_after=new_spec.version,
        checksum_before=spec.checksum,
        checksum_after=new_spec.checksum,
        added=tuple(add_closed),
        removed=tuple(sorted(removed)),
        reason=reason.strip(),
        actor=actor.strip(),
        at=at,
    )
    return new_spec, change
