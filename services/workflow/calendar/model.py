"""Deadline data: the rule, the events that happened to a deadline, and the audit records.

A :class:`Deadline` is plain data the engine stores with its instance. The derived fields
(``budget``, ``consumed``, ``anchor``, ``due``) are a cache of what :func:`~.deadlines.replay`
computes from ``rule``, ``started_on`` and ``events``; a replay must give the same value.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

import msgspec

from contracts.errors import FieldError

from .errors import DeadlineRuleInvalid
from .workdays import MAX_COUNT

DEADLINE_FORMAT_VERSION = 1

Unit = Literal["calendar_days", "business_days"]
Status = Literal["running", "suspended"]
AuditAction = Literal["extended", "suspended", "resumed", "recomputed"]


class DeadlineRule(msgspec.Struct, frozen=True, kw_only=True):
    """How long a deadline is and how it may be extended.

    ``extension_days`` are in the same unit as ``days``; each extension adds exactly that many.
    """

    unit: Unit
    days: Annotated[int, msgspec.Meta(ge=1, le=3660)]
    max_extensions: Annotated[int, msgspec.Meta(ge=0, le=10)] = 0
    extension_days: Annotated[int, msgspec.Meta(ge=0, le=3660)] = 0


def validate_rule(rule: DeadlineRule) -> None:
    """Refuse rules whose counts are out of range (msgspec only checks them on decode)."""
    errors: list[FieldError] = []
    if rule.unit not in ("calendar_days", "business_days"):
        errors.append(FieldError(path="unit", code="invalid", message="Unknown unit."))
    if not 1 <= rule.days <= MAX_COUNT:
        errors.append(FieldError(path="days", code="range", message="Use 1 to 3660 days."))
    if not 0 <= rule.max_extensions <= 10:
        errors.append(FieldError(path="max_extensions", code="range", message="Use 0 to 10."))
    if rule.max_extensions and rule.extension_days < 1:
        errors.append(
            FieldError(
                path="extension_days",
                code="range",
                message="An extendable rule needs at least one extension day.",
            )
        )
    if rule.extension_days < 0 or rule.days + rule.max_extensions * rule.extension_days > MAX_COUNT:
        errors.append(
            FieldError(path="extension_days", code="range", message="At most 3660 days in all.")
        )
    if errors:
        raise DeadlineRuleInvalid(errors=errors)


# Lei 12.527/2011 (LAI), art. 11 §§1-2: 20 days, extendable once by 10 with a justification.
ESIC_REQUEST = DeadlineRule(unit="calendar_days", days=20, max_extensions=1, extension_days=10)
# LAI art. 15, parágrafo único: the appeal authority answers within 5 days.
ESIC_APPEAL = DeadlineRule(unit="calendar_days", days=5)
# Lei 13.460/2017, art. 16: 30 days, extendable once by an equal period with a justification.
OUVIDORIA = DeadlineRule(unit="calendar_days", days=30, max_extensions=1, extension_days=30)


class Extension(msgspec.Struct, frozen=True, kw_only=True, tag="extension", tag_field="kind"):
    """A prorrogação: ``days`` more, with the justification sent to the requester."""

    days: int
    justification: str
    actor: str
    at: datetime


class Suspension(msgspec.Struct, frozen=True, kw_only=True, tag="suspension", tag_field="kind"):
    """The clock stops (e.g. the requester was asked to complement the request).

    ``reason`` is internal (audit only); ``legal_basis`` is the law or decree that allows the
    suspension, which the citizen may read (``None`` in logs written before it existed).
    """

    at: datetime
    reason: str
    actor: str
    legal_basis: str | None = None


class Resumption(msgspec.Struct, frozen=True, kw_only=True, tag="resumption", tag_field="kind"):
    """The clock restarts (e.g. the complement arrived)."""

    at: datetime
    actor: str


DeadlineEvent = Extension | Suspension | Resumption


class Deadline(msgspec.Struct, frozen=True, kw_only=True):
    """A legal deadline and everything that happened to it.

    ``due`` is 23:59:59 local time of the final day, or ``None`` while suspended (the final
    day is unknown until the clock restarts). ``budget`` is ``rule.days`` plus every
    extension; ``consumed`` counts the units used by running periods that have ended;
    ``anchor`` is the date the current running period counts from (excluded).
    ``calendar_key``/``calendar_version``/``calendar_checksum`` name the calendar that
    produced ``due``.
    """

    rule: DeadlineRule
    started_on: date
    started_at: datetime | None
    calendar_key: str
    calendar_version: int
    calendar_checksum: str
    status: Status
    due: datetime | None
    budget: int
    consumed: int
    anchor: date
    suspended_at: datetime | None = None
    events: tuple[DeadlineEvent, ...] = ()
    format_version: int = DEADLINE_FORMAT_VERSION

    @property
    def extensions_used(self) -> int:
        return sum(isinstance(event, Extension) for event in self.events)

    @property
    def last_event_at(self) -> datetime | None:
        return self.events[-1].at if self.events else self.started_at


class DeadlineAudit(msgspec.Struct, frozen=True, kw_only=True):
    """What the engine writes to its audit table in the same transaction as the deadline.

    ``reason`` is the justification (extension), the reason (suspension or recomputation) or
    ``None`` (resumption). ``remaining_units`` is the part of the budget not yet used.
    """

    action: AuditAction
    actor: str
    at: datetime
    reason: str | None
    due_before: datetime | None
    due_after: datetime | None
    calendar_key: str
    calendar_version_before: int
    calendar_version_after: int
    remaining_units: int
    extension_days: int | None = None
    legal_basis: str | None = None
    format_version: int = DEADLINE_FORMAT_VERSION
