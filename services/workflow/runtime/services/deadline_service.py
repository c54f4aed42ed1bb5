"""Legal deadlines on instances: stored calendar versions, and start/extend/suspend/resume/
recompute, each in one transaction with its audit entry and the bound timer moved.

The counting is the pure ``services.workflow.calendar`` package; this service adds storage,
locking and audit. A deadline row is its event log; the deadline is rebuilt by replaying that
log on the stored calendar version, so what we act on is always what the law's rules give.

A timer is *bound* to a deadline when its ``timer_id`` equals the deadline's name (a boundary
timer on the task that answers the request, or a timer node). Moving the deadline moves that
timer's ``due_at``. ``workflow_timers.due_at`` is NOT NULL and a suspended deadline has no due
date, so suspension parks the timer in status ``suspended`` (keeping its last due date, which
no tick reads: ticks select ``pending`` only) and resumption makes it ``pending`` again at the
new due date — unless the timer's token has left the node meanwhile, in which case the timer
is cancelled instead of being revived.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import msgspec
import structlog

from contracts.errors import InvalidTransition, NotFound
from contracts.kernel import Actor, AuditEntry, Clock
from core.i18n import N_
from services.workflow.calendar import (
    Calendar,
    Deadline,
    DeadlineAudit,
    DeadlineRule,
    DeadlineStateInvalid,
    ExtensionRefused,
    extend,
    recompute,
    replay,
    resume,
    start_deadline,
    suspend,
)
from services.workflow.calendar.legal import count_extension
from services.workflow.runtime.ports import InstanceRecord, UnitOfWork
from services.workflow.runtime.ports.deadlines import (
    CalendarNotFound,
    CalendarVersionConflict,
    DeadlineExists,
    DeadlineNotFound,
    DeadlineRow,
    DeadlineStore,
    DeadlineView,
)
from services.workflow.runtime.services.calendar_book import CalendarBook, CalendarRevision
from services.workflow.runtime.services.deadline_records import (
    audit_entry,
    bind_timer,
    deadline_row,
    deadline_view,
    iso,
)
from services.workflow.runtime.services.legal_time import (
    CountedDeadline,
    DeadlinePreview,
    DeadlineRuleNotFound,
    LegalTime,
    extensions_in_force,
)

log = structlog.get_logger("tramita.workflow.deadlines")


__all__ = [
    "CalendarNotFound",
    "CalendarRevision",
    "CalendarVersionConflict",
    "DeadlineExists",
    "DeadlineNotFound",
    "DeadlineRow",
    "DeadlineService",
    "DeadlineStore",
    "DeadlineView",
]

Transition = Callable[[Deadline, Calendar, datetime], tuple[Deadline, DeadlineAudit]]


class DeadlineService(CalendarBook):
    """Calendars and deadlines, one transaction per call, every change audited (the calendar
    operations are :class:`~.calendar_book.CalendarBook`'s)."""

    def __init__(
        self,
        *,
        uow_factory: Callable[[], UnitOfWork],
        store: Callable[[UnitOfWork], DeadlineStore],
        clock: Clock,
        legal: LegalTime,
    ) -> None:
        super().__init__(uow_factory=uow_factory, store=store, clock=clock)
        self.legal = legal

    async def tenant_calendar(self, tenant: str | None = None) -> Calendar:
        """The latest stored version of the calendar ``tenant``'s cases count on (the
        jurisdiction's for ``None``): what a page shows closed days and days left with."""
        async with self._uow() as uow:
            return await self.legal.current(uow, tenant)

    async def case_calendar(self, instance_id: str) -> Calendar:
        """:meth:`tenant_calendar` of the case's tenant."""
        async with self._uow() as uow:
            return await self.legal.calendar_of_instance(uow, instance_id)

    # --- deadlines ----------------------------------------------------------------------------

    async def start(
        self, instance_id: str, name: str, rule: DeadlineRule, calendar_key: str, actor: Actor
    ) -> DeadlineView:
        """Start counting now on the latest version of the calendar; day zero is today."""
        now = self._clock.now()
        async with self._uow() as uow:
            store = self._store(uow)
            record = await self._lock(uow, instance_id, allow_ended=False)
            if await store.deadline(instance_id, name) is not None:
                raise DeadlineExists(instance_id=instance_id, deadline=name)
            calendar = await self._latest(store, calendar_key)
            deadline = start_deadline(rule, calendar, now)
            row = deadline_row(instance_id, name, deadline, now)
            await store.add_deadline(row)
            await uow.audit.append(
                AuditEntry(
                    action="workflow.deadline.started",
                    object_type="workflow_instance",
                    object_id=instance_id,
                    actor=actor,
                    after={
                        "deadline": name,
                        "rule": msgspec.to_builtins(rule),
                        "due_at": iso(deadline.due),
                        "calendar_key": calendar.key,
                        "calendar_version": calendar.version,
                    },
                )
            )
            await bind_timer(uow, store, record, name, deadline, now)
            await uow.commit()
        return deadline_view(instance_id, name, deadline, calendar, now)

    async def extend(
        self, instance_id: str, name: str, justification: str, actor: Actor
    ) -> DeadlineView:
        """Prorrogação: the rule's extension days, with a justification (audit reason only).

        A legal deadline (counted from a rule a timer names: e-SIC, Ouvidoria) is extended as
        its rule says: ``extension_days`` counted from the deadline in force (its due day,
        already rolled forward), at most ``max_extensions`` times in all — the flow's own
        extension included; beyond that, or on a rule without extension, it is refused."""
        counted = await self.counted(instance_id)
        last = next((c for c in reversed(counted) if c.timer == name), None)
        if last is not None:
            return await self._extend_legal(
                instance_id,
                name,
                last,
                extensions_in_force(counted, name, last.rule),
                justification,
                actor,
            )

        def step(deadline: Deadline, cal: Calendar, at: datetime) -> tuple[Deadline, DeadlineAudit]:
            return extend(deadline, cal, justification=justification, actor=actor.id, at=at)

        return await self._transition(instance_id, name, actor, step)

    async def _extend_legal(
        self,
        instance_id: str,
        name: str,
        last: CountedDeadline,
        used: int,
        justification: str,
        actor: Actor,
    ) -> DeadlineView:
        rule = self.legal.rule(last.rule)
        text = justification.strip()
        if rule.max_extensions < 1:
            raise ExtensionRefused(N_("This legal deadline allows no extension."), rule=rule.key)
        if used >= rule.max_extensions:
            raise ExtensionRefused(
                N_("This legal deadline was already extended as far as its rule allows."),
                rule=rule.key,
                max_extensions=rule.max_extensions,
            )
        if not text:
            raise ExtensionRefused(N_("An extension needs a justification."), rule=rule.key)
        now = self._clock.now()
        async with self._uow() as uow:
            store = self._store(uow)
            record = await self._lock(uow, instance_id, allow_ended=False)
            row = await store.deadline(instance_id, name)
            if row is None:
                raise DeadlineNotFound(instance_id=instance_id, deadline=name)
            if row.due_at is None:
                raise DeadlineStateInvalid(
                    N_("A suspended deadline cannot be extended."), deadline_status=row.status
                )
            if now > row.due_at:
                raise ExtensionRefused(
                    N_("An extension must be decided before the deadline expires."),
                    rule=rule.key,
                )
            calendar = await self.legal.calendar_of_instance(uow, instance_id)
            due = count_extension(rule, calendar, calendar.local_date(row.due_at))
            await uow.audit.append(
                self.legal.audit(
                    instance_id, last.node, name, due, justification=text, decided_at=now
                )
            )
            await uow.audit.append(
                AuditEntry(
                    action="workflow.deadline.extended",
                    object_type="workflow_instance",
                    object_id=instance_id,
                    actor=actor,
                    before={"deadline": name, "due_at": iso(row.due_at)},
                    after={
                        "deadline": name,
                        "due_at": iso(due.due_at),
                        "rule": rule.key,
                        "extension_days": rule.extension_days,
                        "calendar_key": calendar.key,
                        "calendar_version": calendar.version,
                    },
                    reason=text,
                )
            )
            deadline = await self.legal.track(uow, instance_id, name, due, now)
            assert deadline is not None  # a tracked row exists, so the rule is tracked
            await bind_timer(uow, store, record, name, deadline, now)
            await uow.commit()
        view = deadline_view(instance_id, name, deadline, calendar, now)
        return msgspec.structs.replace(view, extensions_used=used + 1)

    async def suspend(
        self, instance_id: str, name: str, reason: str, actor: Actor, *, legal_basis: str
    ) -> DeadlineView:
        """Sobrestamento: stop the clock (e.g. waiting for the requester's complement). The
        reason stays in the audit trail; the legal basis is shown to the citizen too."""

        def step(deadline: Deadline, cal: Calendar, at: datetime) -> tuple[Deadline, DeadlineAudit]:
            return suspend(
                deadline, cal, at=at, reason=reason, actor=actor.id, legal_basis=legal_basis
            )

        return await self._transition(instance_id, name, actor, step)

    async def resume(self, instance_id: str, name: str, actor: Actor) -> DeadlineView:
        """Restart the clock: what was left counts again from today."""

        def step(deadline: Deadline, cal: Calendar, at: datetime) -> tuple[Deadline, DeadlineAudit]:
            return resume(deadline, cal, at=at, actor=actor.id)

        return await self._transition(instance_id, name, actor, step)

    async def recompute_open(self, calendar_key: str, actor: Actor) -> list[DeadlineView]:
        """After a revision: rebuild every deadline counting with an older version, each in
        its own transaction (one instance lock at a time), and return them."""
        async with self._uow() as uow:
            store = self._store(uow)
            latest = await self._latest(store, calendar_key)
            stale = await store.stale_on(calendar_key, latest.version)

        def step(deadline: Deadline, cal: Calendar, at: datetime) -> tuple[Deadline, DeadlineAudit]:
            reason = f"calendar {cal.key} v{deadline.calendar_version} -> v{cal.version}"
            return recompute(deadline, cal, at=at, actor=actor.id, reason=reason)

        return [
            await self._transition(instance_id, name, actor, step, lock_ended=True)
            for instance_id, name in stale
        ]

    async def show(self, instance_id: str, name: str | None = None) -> list[DeadlineView]:
        """The instance's deadlines (or the named one), as stored, with units left now (a
        legal deadline's extensions are those counted for it, the flow's included)."""
        now = self._clock.now()
        async with self._uow() as uow:
            store = self._store(uow)
            rows = await store.deadlines(instance_id)
            counted = await self.legal.counted(uow, instance_id)
            views = []
            for row in rows:
                if name is None or row.name == name:
                    deadline, calendar = await self._load(store, row)
                    view = deadline_view(instance_id, row.name, deadline, calendar, now)
                    last = next((c for c in reversed(counted) if c.timer == row.name), None)
                    if last is not None:
                        used = extensions_in_force(counted, row.name, last.rule)
                        view = msgspec.structs.replace(view, extensions_used=used)
                    views.append(view)
        if name is not None and not views:
            raise DeadlineNotFound(instance_id=instance_id, deadline=name)
        return views

    async def preview(
        self,
        rule: str,
        filed_at: datetime,
        *,
        calendar_key: str | None = None,
        extend: bool = False,
        tenant: str | None = None,
    ) -> list[DeadlinePreview]:
        """What a request filed at ``filed_at`` would get under ``rule`` (and its extension),
        on the latest version of ``calendar_key`` (if none, the calendar ``tenant``'s cases
        count on); nothing is stored."""
        if rule not in self.legal.rules:
            raise DeadlineRuleNotFound(rule=rule)
        async with self._uow() as uow:
            if calendar_key is None:
                calendar = await self.legal.current(uow, tenant)
            else:
                calendar = await self._latest(self._store(uow), calendar_key)
        dues = self.legal.preview(rule, filed_at, extend=extend, calendar=calendar)
        return [self.legal.view(due) for due in dues]

    async def counted(self, instance_id: str) -> list[CountedDeadline]:
        """The legal deadlines counted for the instance's timers, oldest first: rule, filing and
        receipt, start, nominal end, due day and instant, the days that moved it, and the
        explanation in pt-BR (as stored with each timer)."""
        async with self._uow() as uow:
            rows = await self._store(uow).counted(instance_id)
        return [msgspec.convert(row, CountedDeadline) for row in rows]

    # --- the transaction every transition shares ----------------------------------------------

    async def _transition(
        self,
        instance_id: str,
        name: str,
        actor: Actor,
        step: Transition,
        *,
        lock_ended: bool = False,
    ) -> DeadlineView:
        now = self._clock.now()
        async with self._uow() as uow:
            store = self._store(uow)
            record = await self._lock(uow, instance_id, allow_ended=lock_ended)
            row = await store.deadline(instance_id, name)
            if row is None:
                raise DeadlineNotFound(instance_id=instance_id, deadline=name)
            before, _ = await self._load(store, row)
            calendar = await self._latest(store, row.calendar_key)
            after, audit = step(before, calendar, now)
            await store.update_deadline(deadline_row(instance_id, name, after, now))
            await uow.audit.append(audit_entry(instance_id, name, actor, audit))
            await bind_timer(uow, store, record, name, after, now)
            await uow.commit()
        return deadline_view(instance_id, name, after, calendar, now)

    async def _lock(
        self, uow: UnitOfWork, instance_id: str, *, allow_ended: bool
    ) -> InstanceRecord:
        record = await uow.instances.lock(instance_id)
        if record is None:
            raise NotFound(N_("Instance not found."), instance_id=instance_id)
        if record.ended_at is not None and not allow_ended:
            raise InvalidTransition(
                "The instance has ended.", instance_id=instance_id, status=record.status
            )
        return record

    async def _load(self, store: DeadlineStore, row: DeadlineRow) -> tuple[Deadline, Calendar]:
        spec = await store.calendar(row.calendar_key, row.calendar_version)
        if spec is None:
            raise CalendarNotFound(calendar_key=row.calendar_key, version=row.calendar_version)
        calendar = await self._build(store, spec)
        deadline = replay(row.rule, calendar, row.started_at, row.events)
        if deadline.due != row.due_at or deadline.status != row.status:
            # The stored log is the truth; a differing cache means the holiday data changed.
            log.warning("deadline_cache_differs", instance_id=row.instance_id, deadline=row.name)
        return deadline, calendar
