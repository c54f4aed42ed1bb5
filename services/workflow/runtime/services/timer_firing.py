"""Firing due timers: each exactly once, in a unit of work of its own, through
``Engine.apply_in`` (a ``TimerFired`` event)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

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

    async def tick(self, *, limit: int = 500, concurrency: int = 1) -> int:
        """Fire every timer due now (in batches); returns how many fired. Up to
        ``concurrency`` timers fire at once, each in its own transaction."""
        fired = 0
        gate = asyncio.Semaphore(concurrency)

        async def fire(timers: list[TimerRecord]) -> int:
            # One instance's timers one after the other: they would only wait for each other.
            async with gate:
                return sum([await self.fire_timer(t.id, t.instance_id) for t in timers])

        while True:
            async with self._uow() as uow:
                due = await uow.timers.due(self._clock.now(), limit)
            if not due:
                return fired
            by_instance: dict[str, list[TimerRecord]] = {}
            for timer in due:
                by_instance.setdefault(timer.instance_id, []).append(timer)
            results = await asyncio.gather(*(fire(group) for group in by_instance.values()))
            batch = sum(results)
            fired += batch
            if batch == 0:
                return fired
