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
from services.workflow.calendar import Calendar, Deadline, DeadlineRule, start_deadline
from services.workflow.calendar.legal import (
    DEFAULT_RECEIPT,
    LegalDue,
    ReceiptRule,
    count_extension,
    count_legal,
    explain,
    keep_in_force,
)
from services.workflow.calendar.model import Unit
from services.workflow.runtime.ports import UnitOfWork
from services.workflow.runtime.ports.deadlines import DeadlineRow, DeadlineStore
from services.workflow.runtime.services.calendar_book import CalendarCache, build_calendar

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
    """A deadline counted for one of an instance's timers (stored with its audit entry).
    An extension granted with ``tramita deadline extend`` (or its API/page) keeps its
    ``justification`` and when it was decided (``decided_at``): the requester is told both."""

    node: str
    timer: str
    justification: str | None = None
    decided_at: datetime | None = None


def extensions_in_force(counted: list[CountedDeadline], timer_id: str, rule: str) -> int:
    """Extensions counted for the deadline in force of ``timer_id`` (since its last
    non-extension count: a later task with the same timer id starts a new deadline)."""
    used = 0
    for entry in counted:
        if entry.timer != timer_id:
            continue
        used = used + 1 if entry.extends is not None and entry.rule == rule else 0
    return used


class LegalTime:
    """The rules in force, the calendar and the receipt rule of the jurisdiction.

    The calendar a deadline is counted on is the latest stored version of the jurisdiction's
    calendar (``calendar_key``, ``TRAMITA_WF_CALENDAR``), read in the counting transaction and
    built once per version: a city's change (``DeadlineService.change_calendar``) is counted
    from the next deadline on, and the version used is recorded with it. ``calendar`` is the
    calendar built at boot, used until that key is stored, and then the latest version seen
    (what pages render closed days with).

    A tenant listed in ``tenant_calendars`` (``TRAMITA_WF_TENANT_CALENDARS``) counts on its own
    calendar key the same way: ``current(uow, tenant)`` and ``calendar_for(tenant)``."""

    def __init__(
        self,
        calendar: Calendar,
        rules: Mapping[str, LegalRule],
        receipt: ReceiptRule = DEFAULT_RECEIPT,
        store: Callable[[UnitOfWork], DeadlineStore] | None = None,
        *,
        calendar_key: str | None = None,
        tenant_calendars: Mapping[str, str] | None = None,
    ) -> None:
        self.calendar = calendar
        self.calendar_key = calendar_key or calendar.key
        self.tenant_calendars: Mapping[str, str] = dict(tenant_calendars or {})
        self.rules = rules
        self.receipt = receipt
        self._store = store
        self._boot = calendar
        self._seen: dict[str, Calendar] = {}
        self._calendars: CalendarCache = {}

    def key_of(self, tenant: str | None) -> str:
        """The calendar key ``tenant``'s cases count on (the jurisdiction's for any tenant
        without one of its own, and for ``None``)."""
        if tenant is None:
            return self.calendar_key
        return self.tenant_calendars.get(tenant, self.calendar_key)

    async def current(self, uow: UnitOfWork, tenant: str | None = None) -> Calendar:
        """The latest stored version of the calendar ``tenant``'s cases count on (the
        jurisdiction's without a tenant; the boot calendar while the key is not stored)."""
        return await self._latest(uow, self.key_of(tenant))

    async def _latest(self, uow: UnitOfWork, key: str) -> Calendar:
        if self._store is None:
            return self.calendar if key == self.calendar_key else self._boot
        store = self._store(uow)
        spec = await store.latest_calendar(key)
        if spec is None:
            return self.calendar if key == self.calendar_key else self._boot
        calendar = await build_calendar(store, spec, self._calendars)
        if key == self.calendar_key:
            if calendar.key != self.calendar.key or calendar.version > self.calendar.version:
                self.calendar = calendar
        else:
            seen = self._seen.get(key)
            if seen is None or calendar.version > seen.version:
                self._seen[key] = calendar
        return calendar

    def calendar_for(self, tenant: str | None) -> Calendar:
        """The latest version seen of the calendar ``tenant``'s cases count on (what a page
        shows that tenant's closed days and business days left with)."""
        key = self.key_of(tenant)
        if key == self.calendar_key:
            return self.calendar
        return self._seen.get(key, self._boot)

    async def calendar_of_instance(self, uow: UnitOfWork, instance_id: str) -> Calendar:
        """:meth:`current` for the tenant of the case ``instance_id`` (the jurisdiction's when
        the case is unknown: the caller reports that)."""
        if not self.tenant_calendars:
            return await self.current(uow)
        record = await uow.instances.get(instance_id)
        return await self.current(uow, None if record is None else record.tenant)

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
        filed_at: datetime | None = None,
        tenant: str | None = None,
    ) -> LegalDue:
        """The timer's deadline on the current calendar; an extension counts from the latest
        due date of the instance's timers with the same id (the deadline in force), or from the
        start if there is none. When that deadline was already extended as far as the rule
        allows (``tramita deadline extend`` before the flow's extension), the deadline in force
        is kept.

        ``filed_at`` is the instance's filing (its start): the receipt rule applies to it, not
        to the moment the timer starts, so a request whose task opens after 19:00 because a
        step before it ran late is still received the day it was filed. It applies to the
        instance's first receipt-counted rule; a later one (an appeal, a reclamação) is filed
        by the event that opens its task, so it is received from ``started_at``.

        ``tenant`` is the case's (its calendar, ``TRAMITA_WF_TENANT_CALENDARS``); without it,
        the case is read for it when any tenant has a calendar of its own."""
        calendar = await self._case_calendar(uow, instance_id, tenant)
        rule = self.rule(key)
        if not extension:
            start = await self._filed(uow, instance_id, rule, started_at, filed_at)
            return count_legal(rule, calendar, start, receipt=self.receipt)
        previous = [t.due_at for t in await uow.timers.of(instance_id) if t.timer_id == timer_id]
        if not previous:
            return count_legal(rule, calendar, started_at, receipt=self.receipt)
        in_force = calendar.local_date(max(previous))
        if self._store is not None:
            counted = await self.counted(uow, instance_id)
            if extensions_in_force(counted, timer_id, key) >= rule.max_extensions:
                return keep_in_force(rule, calendar, in_force)
        return count_extension(rule, calendar, in_force)

    async def _case_calendar(
        self, uow: UnitOfWork, instance_id: str, tenant: str | None
    ) -> Calendar:
        if tenant is not None:
            return await self.current(uow, tenant)
        return await self.calendar_of_instance(uow, instance_id)

    async def counted(self, uow: UnitOfWork, instance_id: str) -> list[CountedDeadline]:
        """The deadlines counted for the instance so far, in order (their audit entries)."""
        if self._store is None:
            return []
        rows = await self._store(uow).counted(instance_id)
        return [msgspec.convert(row, CountedDeadline) for row in rows]

    async def _filed(
        self,
        uow: UnitOfWork,
        instance_id: str,
        rule: LegalRule,
        started_at: datetime,
        filed_at: datetime | None,
    ) -> datetime:
        if rule.counts_from != "receipt" or filed_at is None:
            return started_at
        for entry in await self.counted(uow, instance_id):
            if entry.received_at is not None and entry.rule != rule.key:
                return started_at  # a later filing: received when its task opens
        return filed_at

    async def track(
        self, uow: UnitOfWork, instance_id: str, timer_id: str, due: LegalDue, now: datetime
    ) -> Deadline | None:
        """Keep the counted deadline as a ``workflow_deadlines`` row named like its timer, so
        ``tramita deadline suspend|resume|extend|show`` and calendar recomputation act on it
        (a later timer of the same name takes the row over). Rules without roll-forward, or a
        calendar version not stored, are not tracked: the deadline package always rolls. A
        deadline kept in force (no days added) leaves the row as it is."""
        legal = self.rule(due.rule)
        if self._store is None or not legal.roll_forward or due.days == 0:
            return None
        store = self._store(uow)
        calendar = await self._latest(uow, due.calendar_key)
        if (calendar.key, calendar.version) != (due.calendar_key, due.calendar_version):
            return None
        if await store.calendar(calendar.key, calendar.version) is None:
            return None
        unit: Unit = "business_days" if due.counting == "business" else "calendar_days"
        rule = DeadlineRule(
            unit=unit,
            days=due.days,
            max_extensions=legal.max_extensions,
            extension_days=legal.extension_days,
        )
        if due.receipt is not None:
            start = due.receipt.received_at
        elif due.extends is not None:
            start = calendar.end_of_day(due.extends)
        else:
            start = datetime.combine(due.start_on, time(12, 0), tzinfo=calendar.tz)
        deadline = start_deadline(rule, calendar, start)
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
        return deadline

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

    def audit(
        self,
        instance_id: str,
        node_id: str,
        timer_id: str,
        due: LegalDue,
        *,
        justification: str | None = None,
        decided_at: datetime | None = None,
    ) -> AuditEntry:
        """What is stored of a counted deadline: both instants, the days, what moved it (and,
        for an extension granted by a person, its justification and when it was decided)."""
        after: dict[str, Any] = {
            "node": node_id,
            "timer": timer_id,
            **msgspec.to_builtins(self.view(due)),
        }
        if justification is not None:
            after["justification"] = justification
            after["decided_at"] = None if decided_at is None else decided_at.isoformat()
        return AuditEntry(
            action=COUNTED_ACTION,
            object_type="workflow_instance",
            object_id=instance_id,
            actor=Actor.system("engine"),
            after=after,
            correlation_id=instance_id,
        )


class BusinessDays:
    """The jurisdiction calendar in force, read at each call (it may be revised)."""

    def __init__(self, legal: LegalTime) -> None:
        self._legal = legal

    def is_business_day(self, day: date) -> bool:
        return self._legal.calendar.is_business_day(day)
