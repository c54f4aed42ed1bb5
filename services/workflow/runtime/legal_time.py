"""Legal deadlines on timers: a timer that names ``deadline: {rule: KEY}`` is due when the rule
says, counted on the jurisdiction's calendar from the day the request counts as received.

The counting is the pure ``services.workflow.calendar.legal``; this adds what needs the
instance: the deadline in force that an extension counts from, and the audit entry that stores
the filing instant, the receipt day and the explanation with the timer, in the same unit of work.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date, datetime, time
from typing import Any

import msgspec

from contracts.errors import ConfigurationError, FieldError, NotFound, ValidationFailed
from contracts.kernel import Actor, AuditEntry
from contracts.workflow.legal import LegalRule
from services.workflow.calendar import Calendar, DeadlineRule, start_deadline
from services.workflow.calendar.legal import (
    DEFAULT_RECEIPT,
    LegalDue,
    ReceiptRule,
    count_extension,
    count_legal,
    explain,
)
from services.workflow.calendar.model import Unit
from services.workflow.runtime.deadline_ports import DeadlineRow, DeadlineStore
from services.workflow.runtime.ports import UnitOfWork

COUNTED_ACTION = "workflow.deadline.counted"


class DeadlineRuleNotFound(NotFound):
    problem_type = "deadline-rule-not-found"
    title = "Deadline rule not found"


class DeadlinePreview(msgspec.Struct, frozen=True, kw_only=True):
    """A counted deadline as people and APIs read it: instants in RFC 3339 with the local
    offset, ``due_on`` the local due date, ``explanation`` in pt-BR."""

    rule: str
    rule_name: str
    legal_basis: str
    counting: str
    days: int
    filed_at: datetime | None
    received_at: datetime | None
    received_on: date | None
    start_on: date
    nominal_end: date
    due_on: date
    due_at: datetime
    moved: list[dict[str, Any]]
    extends: date | None
    calendar_key: str
    calendar_version: int
    explanation: list[str]


class CountedDeadline(DeadlinePreview, frozen=True, kw_only=True):
    """A deadline counted for one of an instance's timers (stored with its audit entry)."""

    node: str
    timer: str


class LegalTime:
    """The rules in force, the calendar and the receipt rule of the jurisdiction."""

    def __init__(
        self,
        calendar: Calendar,
        rules: Mapping[str, LegalRule],
        receipt: ReceiptRule = DEFAULT_RECEIPT,
        store: Callable[[UnitOfWork], DeadlineStore] | None = None,
    ) -> None:
        self.calendar = calendar
        self.rules = rules
        self.receipt = receipt
        self._store = store

    def rule(self, key: str) -> LegalRule:
        rule = self.rules.get(key)
        if rule is None:  # publishing refuses unknown keys; a rule removed from configuration
            raise ConfigurationError("A deadline rule in use is not configured.", rule=key)
        return rule

    def count(self, key: str, started_at: datetime, calendar: Calendar | None = None) -> LegalDue:
        cal = calendar or self.calendar
        return count_legal(self.rule(key), cal, started_at, receipt=self.receipt)

    def preview(
        self,
        key: str,
        filed_at: datetime,
        *,
        extend: bool = False,
        calendar: Calendar | None = None,
    ) -> list[LegalDue]:
        """The deadline of a request filed at ``filed_at`` and, with ``extend``, its extension
        counted from that due date; nothing is stored (a clerk's or an auditor's check)."""
        cal = calendar or self.calendar
        first = self.count(key, filed_at, cal)
        if not extend:
            return [first]
        rule = self.rule(key)
        if rule.max_extensions < 1:
            raise ValidationFailed(
                "This deadline rule allows no extension.",
                errors=[FieldError(path="extend", code="not_extendable", message="No extension.")],
                rule=key,
            )
        return [first, count_extension(rule, cal, first.due_on)]

    async def due(
        self,
        uow: UnitOfWork,
        instance_id: str,
        timer_id: str,
        key: str,
        started_at: datetime,
        *,
        extension: bool,
    ) -> LegalDue:
        """The timer's deadline; an extension counts from the latest due date of the instance's
        timers with the same id (the deadline in force), or from the start if there is none."""
        if not extension:
            return self.count(key, started_at)
        previous = [t.due_at for t in await uow.timers(instance_id) if t.timer_id == timer_id]
        if not previous:
            return self.count(key, started_at)
        in_force = self.calendar.local_date(max(previous))
        return count_extension(self.rule(key), self.calendar, in_force)

    async def track(
        self, uow: UnitOfWork, instance_id: str, timer_id: str, due: LegalDue, now: datetime
    ) -> None:
        """Keep the counted deadline as a ``workflow_deadlines`` row named like its timer, so
        ``tramita deadline suspend|resume|extend|show`` and calendar recomputation act on it
        (a later timer of the same name takes the row over). Rules without roll-forward, or a
        calendar version not stored, are not tracked: the deadline package always rolls."""
        if self._store is None or not self.rule(due.rule).roll_forward:
            return
        store = self._store(uow)
        if await store.calendar(self.calendar.key, self.calendar.version) is None:
            return
        unit: Unit = "business_days" if due.counting == "business" else "calendar_days"
        rule = DeadlineRule(unit=unit, days=due.days)
        if due.receipt is not None:
            start = due.receipt.received_at
        elif due.extends is not None:
            start = self.calendar.end_of_day(due.extends)
        else:
            start = datetime.combine(due.start_on, time(12, 0), tzinfo=self.calendar.tz)
        deadline = start_deadline(rule, self.calendar, start)
        row = DeadlineRow(
            instance_id=instance_id,
            name=timer_id,
            rule=rule,
            calendar_key=deadline.calendar_key,
            calendar_version=deadline.calendar_version,
            calendar_checksum=deadline.calendar_checksum,
            started_at=start,
            due_at=deadline.due,
            status=deadline.status,
            events=(),
            updated_at=now,
        )
        if await store.deadline(instance_id, timer_id) is None:
            await store.add_deadline(row)
        else:
            await store.replace_deadline(row)

    def view(self, due: LegalDue) -> DeadlinePreview:
        rule = self.rule(due.rule)
        receipt = due.receipt
        return DeadlinePreview(
            rule=rule.key,
            rule_name=rule.name,
            legal_basis=rule.legal_basis,
            counting=due.counting,
            days=due.days,
            filed_at=receipt.filed_at if receipt else None,
            received_at=receipt.received_at if receipt else None,
            received_on=receipt.received_on if receipt else None,
            start_on=due.start_on,
            nominal_end=due.nominal_end,
            due_on=due.due_on,
            due_at=due.due_at,
            moved=[msgspec.to_builtins(m) for m in due.moved],
            extends=due.extends,
            calendar_key=due.calendar_key,
            calendar_version=due.calendar_version,
            explanation=self.explain(due),
        )

    def explain(self, due: LegalDue) -> list[str]:
        return explain(due, self.rule(due.rule))

    def audit(self, instance_id: str, node_id: str, timer_id: str, due: LegalDue) -> AuditEntry:
        """What is stored of a counted deadline: both instants, the days, what moved it."""
        after: dict[str, Any] = {
            "node": node_id,
            "timer": timer_id,
            **msgspec.to_builtins(self.view(due)),
        }
        return AuditEntry(
            action=COUNTED_ACTION,
            object_type="workflow_instance",
            object_id=instance_id,
            actor=Actor.system("engine"),
            after=after,
            correlation_id=instance_id,
        )
