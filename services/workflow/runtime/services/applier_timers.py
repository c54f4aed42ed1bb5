"""The timer effects: a timer's due instant (a duration, business days or a legal deadline),
its row, and the instance's next due timer."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from services.workflow.calendar import Calendar
from services.workflow.runtime.kernel.effects import (
    CancelTimers,
    Decision,
    InstanceFinished,
    StartTimer,
)
from services.workflow.runtime.kernel.state import TERMINAL, InstanceState
from services.workflow.runtime.ports import InstanceRecord, TimerRecord, UnitOfWork
from services.workflow.runtime.services.legal_time import LegalTime


class TimerWriter:
    """Writes ``StartTimer`` effects; ``business_days`` count on the jurisdiction's current
    stored calendar, legal deadlines with ``legal`` (audited and tracked)."""

    def __init__(self, calendar: Calendar, legal: LegalTime) -> None:
        self._calendar = calendar
        self._legal = legal

    async def start(
        self,
        uow: UnitOfWork,
        record: InstanceRecord,
        effect: StartTimer,
        now: datetime,
        new_id: Callable[[], str],
    ) -> None:
        due_at = None
        if effect.rule is None:
            business = effect.due_at is None and effect.business_days is not None
            calendar = await self._legal.current(uow, record.tenant) if business else None
            due_at = self.due(effect, calendar)
        if effect.rule is not None:
            legal = await self._legal.due(
                uow,
                record.id,
                effect.timer_id,
                effect.rule,
                effect.starts_at,
                extension=effect.extension,
                filed_at=record.started_at,
                tenant=record.tenant,
            )
            due_at = legal.due_at
            await uow.audit.append(
                self._legal.audit(record.id, effect.node_id, effect.timer_id, legal)
            )
            await self._legal.track(uow, record.id, effect.timer_id, legal, now)
        assert due_at is not None
        await uow.timers.add(
            TimerRecord(
                id=new_id(),
                instance_id=record.id,
                token_id=effect.token_id,
                node_id=effect.node_id,
                timer_id=effect.timer_id,
                attempt_group=effect.attempt_group,
                due_at=due_at,
                status="pending",
                fired_at=None,
            )
        )

    async def next_due(
        self, uow: UnitOfWork, record: InstanceRecord, state: InstanceState, decision: Decision
    ) -> datetime | None:
        """The instance's next pending timer, read only when its timers may have changed."""
        if state.status in TERMINAL:
            return None  # InstanceFinished cancelled every timer
        changed = any(
            isinstance(e, StartTimer | CancelTimers | InstanceFinished) for e in decision.effects
        )
        if record.due_at is None and not changed:
            return None
        return await uow.timers.next_due(record.id)

    def due(self, effect: StartTimer, calendar: Calendar | None = None) -> datetime:
        """A timer's due instant; ``business_days`` count on ``calendar`` (the jurisdiction's
        current stored version; the one built at boot where none is given)."""
        if effect.due_at is not None:
            return effect.due_at
        if effect.rule is not None:
            return self._legal.count(effect.rule, effect.starts_at).due_at
        assert effect.business_days is not None
        cal = calendar or self._calendar
        start = cal.local_date(effect.starts_at)
        return cal.end_of_day(cal.add_business_days(start, effect.business_days))
