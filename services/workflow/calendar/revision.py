"""Calendar revisions: a decreed closure (or its revocation), a new state or municipal holiday,
a dated optional day with the city's decision, or a new state layer version makes a new,
audited version.

The old version is never edited. When a state calendar changes, :func:`follow_state` makes the
next version of each city calendar built on it, pinned to the new state version.

Deadlines keep the version they were computed with until the
engine recomputes them (:func:`~.deadlines.recompute`), so an audit can always say which
calendar produced a due date.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

import msgspec

from contracts.errors import FieldError

from .errors import CalendarRevisionInvalid
from .spec import (
    CalendarSpec,
    DatedHoliday,
    LocalHoliday,
    OptionalDay,
    StateLayer,
    seal_spec,
    verify_spec,
)

CHANGE_FORMAT_VERSION = 2


class CalendarEdit(msgspec.Struct, frozen=True, kw_only=True):
    """What one revision changes. ``optional_days`` replaces the decision already recorded for
    the same date (a city may change its mind; the audit keeps both versions)."""

    add_closed: tuple[DatedHoliday, ...] = ()
    remove_closed: tuple[date, ...] = ()
    optional_days: tuple[OptionalDay, ...] = ()
    state_holidays: tuple[LocalHoliday, ...] = ()
    municipal_holidays: tuple[LocalHoliday, ...] = ()
    state: StateLayer | None = None

    def empty(self) -> bool:
        return not any(
            (
                self.add_closed,
                self.remove_closed,
                self.optional_days,
                self.state_holidays,
                self.municipal_holidays,
                self.state,
            )
        )


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
    optional_days: tuple[OptionalDay, ...] = ()
    state_holidays: tuple[LocalHoliday, ...] = ()
    municipal_holidays: tuple[LocalHoliday, ...] = ()
    state_before: StateLayer | None = None
    state_after: StateLayer | None = None


def _layer_problems(spec: CalendarSpec, edit: CalendarEdit) -> list[FieldError]:
    """What belongs to another layer: the city decides optional days and its own holidays; a
    city on a state calendar takes state holidays and closures from it."""
    errors: list[FieldError] = []
    if spec.layer == "state":
        for name in ("optional_days", "municipal_holidays", "state"):
            if getattr(edit, name):
                errors.append(
                    FieldError(path=name, code="not_state", message="Not in a state calendar.")
                )
    elif spec.state is not None and edit.state_holidays:
        errors.append(
            FieldError(
                path="state_holidays",
                code="in_state_layer",
                message="Enter state holidays in the state calendar this one builds on.",
            )
        )
    elif spec.state is None and edit.state is not None:
        errors.append(
            FieldError(path="state", code="no_state_layer", message="No state layer to follow.")
        )
    days = [item.on for item in edit.optional_days]
    if len(set(days)) != len(days):
        errors.append(
            FieldError(path="optional_days", code="duplicate", message="A date is listed twice.")
        )
    return errors


def _problems(
    spec: CalendarSpec,
    add_closed: Sequence[DatedHoliday],
    remove_closed: Sequence[date],
    reason: str,
    actor: str,
    at: datetime,
    edit: CalendarEdit,
) -> list[FieldError]:
    errors: list[FieldError] = _layer_problems(spec, edit)
    if not reason.strip():
        errors.append(FieldError(path="reason", code="required", message="Say why."))
    if not actor.strip():
        errors.append(FieldError(path="actor", code="required", message="Say who."))
    if at.tzinfo is None or at.utcoffset() is None:
        errors.append(FieldError(path="at", code="naive", message="Give a time zone."))
    if edit.empty():
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
    optional_days: Sequence[OptionalDay] = (),
    state_holidays: Sequence[LocalHoliday] = (),
    municipal_holidays: Sequence[LocalHoliday] = (),
    state: StateLayer | None = None,
    reason: str,
    actor: str,
    at: datetime,
) -> tuple[CalendarSpec, CalendarChange]:
    """Return the next version of ``spec`` and the audit record of the change.

    Closures (``extra_closed``) can be added and removed; state and municipal holidays are
    only added (revoking one is a new spec, reviewed like any configuration change); a dated
    optional day replaces the decision recorded for its date; ``state`` moves a city onto a
    newer version of its state calendar. A date may be added and another removed in the same
    revision; re-adding a date that is removed in the same call is refused as a duplicate to
    keep the record unambiguous.
    """
    verify_spec(spec)
    edit = CalendarEdit(
        add_closed=tuple(add_closed),
        remove_closed=tuple(remove_closed),
        optional_days=tuple(optional_days),
        state_holidays=tuple(state_holidays),
        municipal_holidays=tuple(municipal_holidays),
        state=state,
    )
    errors = _problems(spec, add_closed, remove_closed, reason, actor, at, edit)
    if errors:
        raise CalendarRevisionInvalid(errors=errors, calendar_key=spec.key, version=spec.version)
    removed = set(remove_closed)
    kept = tuple(item for item in spec.extra_closed if item.on not in removed)
    closed = tuple(sorted((*kept, *add_closed), key=lambda item: item.on))
    decided = {item.on for item in optional_days}
    optional = tuple(
        sorted(
            (*(i for i in spec.optional_days if i.on not in decided), *optional_days),
            key=lambda item: item.on,
        )
    )
    new_spec = seal_spec(
        msgspec.structs.replace(
            spec,
            version=spec.version + 1,
            extra_closed=closed,
            optional_days=optional,
            state_holidays=(*spec.state_holidays, *state_holidays),
            municipal_holidays=(*spec.municipal_holidays, *municipal_holidays),
            state=state or spec.state,
            checksum="",
        )
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
        optional_days=tuple(optional_days),
        state_holidays=tuple(state_holidays),
        municipal_holidays=tuple(municipal_holidays),
        state_before=spec.state,
        state_after=new_spec.state,
    )
    return new_spec, change


def follow_state(
    city: CalendarSpec, state: CalendarSpec, *, reason: str, actor: str, at: datetime
) -> tuple[CalendarSpec, CalendarChange]:
    """The next version of ``city`` built on ``state`` (a newer version of its state calendar)."""
    verify_spec(state)
    if city.state is None or city.state.key != state.key or state.layer != "state":
        raise CalendarRevisionInvalid(
            errors=[
                FieldError(path="state", code="not_its_state", message="Not its state calendar.")
            ],
            calendar_key=city.key,
            version=city.version,
        )
    layer = StateLayer(key=state.key, version=state.version)
    return revise(city, state=layer, reason=reason, actor=actor, at=at)
