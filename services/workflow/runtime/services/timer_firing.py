"""Firing due timers: each exactly once, in a unit of work of its own, through
``Engine.apply_in`` (a ``TimerFired`` event)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import datetime

from contracts.errors import InvalidTransition
from contracts.kernel import Actor, Clock
from services.workflow.definition import CompiledModel
from services.workflow.runtime.kernel.events import TimerFired
from services.workflow.runtime.ports import InstanceRecord, TimerRecord, UnitOfWork
from services.workflow.runtime.services.applier import state_from_json
from services.workflow.runtime.services.applying import ApplyIn


class TimerFiring:
    """Fires the timers the engine stored; ``wakeup`` tells delivery new work was committed."""

    def __init__(
        self,
        *,
        uow_factory: Callable[[], UnitOfWork],
        clock: Clock,
        model_of: Callable[[UnitOfWork, InstanceRecord], Awaitable[CompiledModel]],
        apply_in: ApplyIn,
        wakeup: Callable[[], None],
    ) -> None:
        self._uow = uow_factory
        self._clock = clock
        self._model_of = model_of
        self._apply_in = apply_in
        self._wakeup = wakeup

    async def fire_timer(self, timer_row_id: str, instance_id: str) -> bool:
        """Fire one due timer exactly once, even with several ticks running at the same time.

        The instance is locked before the timer: every other change to timers is made while
        applying an event, under the instance's lock, and firing a timer can cancel the
        instance's other timers — taking the timer first deadlocked against a tick firing
        another timer of the same instance."""
        now = self._clock.now()
        async with self._uow() as uow:
            record = await uow.instances.lock(instance_id)
            if record is None:
                return False
            timer = await uow.timers.lock(timer_row_id)
            if timer is None or timer.status != "pending" or timer.due_at > now:
                return False
            if not await uow.timers.mark_fired(timer.id, now):
                return False
            model = await self._model_of(uow, record)
            state = state_from_json(record.state)
            event = TimerFired(
                at=now,
                token_id=timer.token_id,
                node_id=timer.node_id,
                attempt_group=timer.attempt_group,
                timer_id=timer.timer_id,
            )
            try:
                await self._apply_in(
                    uow, record, model, state, event, actor=Actor.system("timer"), now=now
                )
            except InvalidTransition:
                # The token moved on before the timer fired (a race the tick lost): the timer
                # is spent, nothing else changes.
                await uow.commit()
                return False
            await uow.commit()
        self._wakeup()
        return True

    async def fire_batch(self, limit: int) -> tuple[int, int]:
        """Fire up to ``limit`` due timers in one unit of work: ``(fired, spent)`` — a
        spent timer is marked fired; it fired unless its token had moved on.

        The batch's timers and their instances are locked together (PostgreSQL skips what
        another tick or transaction holds, so concurrent ticks share the work without waiting
        and never fire a timer twice). One timer per instance fires per batch — the next one
        of the same instance sees the state the first left, in the next batch. Each fired
        timer is its own ``TimerFired`` event through ``apply_in`` (its history row, its audit
        entry); the batch commits once. If applying one fails unexpectedly, the batch rolls
        back and its timers fire one by one (``fire_timer``), so the failure stays with its
        own timer."""
        now = self._clock.now()
        async with self._uow() as uow:
            claimed = await uow.timers.claim_due(now, limit)
            if not claimed:
                return 0, 0
            first: dict[str, TimerRecord] = {}
            for timer in claimed:
                first.setdefault(timer.instance_id, timer)
            records = await uow.instances.lock_many(list(first))
            chosen = [timer for i, timer in first.items() if i in records]
            marked = await uow.timers.mark_fired_many([timer.id for timer in chosen], now)
            fired, failed = 0, False
            try:
                for timer in chosen:
                    if timer.id in marked and await self._fire_in(
                        uow, records[timer.instance_id], timer, now
                    ):
                        fired += 1
            except Exception:  # noqa: BLE001 - re-done timer by timer below
                failed = True
                await uow.rollback()
            else:
                await uow.commit()
        if failed:
            again = await self._one_by_one(chosen)
            return again, again
        if fired:
            self._wakeup()
        return fired, len(marked)

    async def _one_by_one(self, timers: list[TimerRecord]) -> int:
        """Fire each timer in its own unit of work; the first failure is raised after the
        others have fired, so one broken instance never holds the rest back."""
        fired, error = 0, None
        for timer in timers:
            try:
                fired += await self.fire_timer(timer.id, timer.instance_id)
            except Exception as exc:  # noqa: BLE001 - raised below, after the others
                error = error or exc
        if error is not None:
            raise error
        return fired

    async def _fire_in(
        self, uow: UnitOfWork, record: InstanceRecord, timer: TimerRecord, now: datetime
    ) -> bool:
        """Apply ``timer``'s ``TimerFired`` to its locked instance; ``False`` when the token
        moved on before the timer fired (the timer is spent, nothing else changes)."""
        model = await self._model_of(uow, record)
        event = TimerFired(
            at=now,
            token_id=timer.token_id,
            node_id=timer.node_id,
            attempt_group=timer.attempt_group,
            timer_id=timer.timer_id,
        )
        try:
            await self._apply_in(
                uow,
                record,
                model,
                state_from_json(record.state),
                event,
                actor=Actor.system("timer"),
                now=now,
            )
        except InvalidTransition:
            return False
        return True

    async def tick(self, *, limit: int = 500, concurrency: int = 1) -> int:
        """Fire every timer due now, in batches of up to ``limit`` per transaction; returns
        how many fired. ``concurrency`` batches run at once (PostgreSQL: each takes its own
        timers with ``SKIP LOCKED``); each loop ends when a batch finds nothing it can fire.
        The first batch runs alone: a tick that finds nothing due (most of them) costs one
        transaction, not ``concurrency``."""

        async def loop() -> int:
            fired = 0
            while True:
                batch, spent = await self.fire_batch(limit)
                fired += batch
                if spent == 0:
                    return fired

        first, spent = await self.fire_batch(limit)
        if spent == 0:
            return first
        return first + sum(await asyncio.gather(*(loop() for _ in range(max(1, concurrency)))))
