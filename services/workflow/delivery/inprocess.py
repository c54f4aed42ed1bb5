"""Embedded delivery: the same outbox protocol, consumed inside the process (no Redis).

``drain()`` delivers until nothing is due — what tests and ``tramita demo`` use with a fixed
clock; ``run()`` is the background loop of ``tramita run``, woken right after each commit.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Any

import structlog

from contracts.kernel import Clock
from services.workflow.delivery.relay import Relay, Sweeper
from services.workflow.runtime.ports import OutboxMessage, UnitOfWork

log = structlog.get_logger("tramita.inprocess")
Dispatch = Callable[[OutboxMessage], Awaitable[Any]]


class InProcessBroker:
    """Keeps published messages in memory until the consumer loop takes them."""

    def __init__(self) -> None:
        self.queue: deque[OutboxMessage] = deque()

    async def publish(self, message: OutboxMessage) -> None:
        self.queue.append(message)


class InProcessDelivery:
    def __init__(
        self,
        uow_factory: Callable[[], UnitOfWork],
        clock: Clock,
        dispatch: Dispatch,
        *,
        wake: asyncio.Event,
        recover: Callable[[str], Awaitable[Any]],
        stranded_after: timedelta = timedelta(seconds=60),
        sweeps: Sequence[Callable[[], Awaitable[int]]] = (),
        pools: frozenset[str] = frozenset(),
    ) -> None:
        self.broker = InProcessBroker()
        self.relay = Relay(uow_factory, self.broker, clock)
        self.sweeper = Sweeper(
            uow_factory,
            clock,
            recover=recover,
            stranded_after=stranded_after,
            also=sweeps,
            pools=pools,
        )
        self._dispatch = dispatch
        self._wake = wake
        """Set by ``wakeup`` and by whatever else commits work (the engine's wake-up)."""
        self._task: asyncio.Task[None] | None = None

    def wakeup(self) -> None:
        self._wake.set()

    async def drain(self, *, max_messages: int = 100_000) -> int:
        """Relay and consume until no message is due; returns how many were consumed."""
        consumed = 0
        while consumed < max_messages:
            if not self.broker.queue and await self.relay.pump() == 0:
                return consumed
            while self.broker.queue:
                message = self.broker.queue.popleft()
                await self._dispatch(message)
                consumed += 1
        raise RuntimeError(f"delivery did not settle after {max_messages} messages")

    async def run(self, *, poll_s: float = 0.5, per_queue: int = 4) -> None:
        """Background delivery: each queue runs up to ``per_queue`` messages at once, so a slow
        partner on one queue never holds another queue back."""
        limits: dict[str, asyncio.Semaphore] = {}
        running: set[asyncio.Task[Any]] = set()

        async def consume(message: OutboxMessage) -> None:
            gate = limits.setdefault(message.topic, asyncio.Semaphore(per_queue))
            async with gate:
                try:
                    await self._dispatch(message)
                except Exception:
                    log.exception("inprocess_dispatch_failed", topic=message.topic)

        while True:
            try:
                while True:
                    while self.broker.queue:
                        task = asyncio.create_task(consume(self.broker.queue.popleft()))
                        running.add(task)
                        task.add_done_callback(running.discard)
                    if not await self.relay.pump():
                        break
                await self.sweeper.sweep()
            except Exception:
                log.exception("inprocess_delivery_failed")
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=poll_s)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self.run(), name="tramita-inprocess-delivery")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
