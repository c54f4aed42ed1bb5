"""Timer batches on the in-memory unit of work: many timers fire in one transaction, one per
instance per batch, and an instance whose event fails unexpectedly rolls its batch back and
then fails alone — every other timer of the batch still fires."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from services.workflow.runtime.services.timer_firing import TimerFiring
from tests.fakes.memory_kit import MemoryKit

FLOW = {
    "format": 1,
    "key": "memory.wait",
    "name": "Wait, remind, end",
    "protocol_prefix": "MEM",
    "nodes": [
        {"id": "begin", "type": "start", "next": "wait"},
        {"id": "wait", "type": "timer", "duration": "PT1H", "next": "again"},
        {"id": "again", "type": "timer", "duration": "PT1M", "next": "done"},
        {"id": "done", "type": "end"},
    ],
}
AUTHOR = Actor(id="00000000-0000-7000-8000-00000000a001")


class Kit(MemoryKit):
    """The service's wiring on the in-memory unit of work, with a timer firing whose
    ``apply_in`` fails unexpectedly for the broken instances."""

    def __init__(self) -> None:
        super().__init__()
        self.broken: set[str] = set()
        self.wakeups = 0
        self.firing = TimerFiring(
            uow_factory=self.uow,
            clock=self.clock,
            model_of=self.engine.model_of,
            apply_in=self._apply_in,
            wakeup=self._woken,
        )

    def _woken(self) -> None:
        self.wakeups += 1

    async def _apply_in(self, uow: Any, record: Any, *args: Any, **kw: Any) -> Any:
        """The engine's own ``apply_in``, failing unexpectedly for the broken instances."""
        if record.id in self.broken:
            raise RuntimeError("unexpected failure while applying")
        return await self.engine.apply_in(uow, record, *args, **kw)

    async def start(self, count: int) -> list[str]:
        await self.boot(FLOW)
        return [
            (await self.engine.start(StartRequest(definition_key="memory.wait", actor=AUTHOR))).id
            for _ in range(count)
        ]

    def fired(self, instance_id: str) -> int:
        return sum(
            1
            for t in self.database.timers.values()
            if t.instance_id == instance_id and t.status == "fired"
        )


@pytest.fixture
def kit() -> Kit:
    return Kit()


async def test_a_batch_fires_one_timer_per_instance_and_commits_them_together(kit: Kit) -> None:
    instances = await kit.start(5)
    kit.clock.advance(timedelta(hours=2))  # "wait" is due; "again" starts when it fires
    assert await kit.firing.fire_batch(limit=3) == (3, 3)
    assert await kit.firing.fire_batch(limit=3) == (2, 2)
    assert [kit.fired(i) for i in instances] == [1] * 5
    assert kit.wakeups == 2
    assert await kit.firing.tick(limit=2) == 0  # "again" is due a minute after "wait" fired
    kit.clock.advance(timedelta(minutes=1))
    assert await kit.firing.tick(limit=2) == 5
    for instance_id in instances:
        assert (await kit.engine.status(instance_id)).status == "completed"
    assert await kit.firing.tick(limit=2) == 0


async def test_a_failing_instance_fails_alone_after_the_others_fired(kit: Kit) -> None:
    instances = await kit.start(4)
    kit.broken.add(instances[0])
    kit.clock.advance(timedelta(hours=2))
    with pytest.raises(RuntimeError, match="unexpected failure"):
        await kit.firing.tick(limit=10)
    assert [kit.fired(i) for i in instances] == [0, 1, 1, 1]
    (pending,) = [
        t for t in kit.database.timers.values() if t.instance_id == instances[0]
    ]  # rolled back with its batch, then refused alone: still there for the next tick
    assert pending.status == "pending"
    kit.broken.clear()
    assert await kit.firing.tick(limit=10) == 1


async def test_a_tick_with_nothing_due_opens_one_unit_of_work(kit: Kit) -> None:
    opened = 0

    def counting_uow() -> Any:
        nonlocal opened
        opened += 1
        return kit.uow()

    firing = TimerFiring(
        uow_factory=counting_uow,
        clock=kit.clock,
        model_of=kit.engine.model_of,
        apply_in=kit.engine.apply_in,
        wakeup=lambda: None,
    )
    instances = await kit.start(3)
    assert await firing.tick(limit=10, concurrency=8) == 0  # nothing due yet
    assert opened == 1
    kit.clock.advance(timedelta(hours=2))
    assert await firing.tick(limit=10, concurrency=8) == 3  # due: the batches run at once
    assert [kit.fired(i) for i in instances] == [1, 1, 1]
