"""arq's worker, woken by the relay's announcements instead of polling every few milliseconds.

arq looks for due jobs in a loop with a fixed sleep (``poll_delay``): a short sleep costs one
Redis round trip per queue per tick even when idle, a long one sets the hand-off latency. Here
the sleep ends early when the relay announces the queue on the wake channel (see
``arq_broker.wake_channel``), so the poll delay is only the fallback for a lost announcement.

A poll reads the queue's due job ids and arq checks each one in Redis (WATCH, EXISTS, ZSCORE:
three round trips) to learn whether it already runs — including the jobs this very worker
runs and those another worker started, which stay in the queue until they finish. With a
few dozen jobs running and a poll per announcement, that was most of the Redis traffic. The
worker here skips its own running jobs without asking, and does not ask again for
``ELSEWHERE_S`` about a job it found running elsewhere (a worker that died with it leaves
arq's in-progress key to expire much later than that anyway).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Mapping
from typing import Any

import structlog
from arq.connections import ArqRedis
from arq.worker import Worker

log = structlog.get_logger("tramita.worker")


ELSEWHERE_S = 1.0
"""How long a job found running in another worker is not looked at again."""


class WakeableWorker(Worker):
    """An arq ``Worker`` whose wait between polls ends on ``wake()``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._woken = asyncio.Event()
        self._elsewhere: dict[bytes, float] = {}

    async def start_jobs(self, job_ids: list[bytes]) -> None:
        """arq's ``start_jobs``, without asking Redis about jobs known to be running."""
        now = time.monotonic()
        for job_id in job_ids:
            if self.job_counter >= self.max_jobs:
                break
            if job_id.decode() in self.tasks or self._elsewhere.get(job_id, 0.0) > now:
                continue
            await super().start_jobs([job_id])
            if job_id.decode() not in self.tasks:
                self._elsewhere[job_id] = now + ELSEWHERE_S
        if len(self._elsewhere) > 4 * self.queue_read_limit:
            self._elsewhere = {k: v for k, v in self._elsewhere.items() if v > now}

    def wake(self) -> None:
        self._woken.set()

    async def main(self) -> None:
        """arq's ``Worker.main`` loop (not in burst mode) with a wake-able sleep."""
        assert self._pool is not None, "a WakeableWorker is given its Redis pool"
        self.ctx["redis"] = self.pool
        if self.on_startup:
            await self.on_startup(self.ctx)
        while True:
            # Cleared before looking, so an announcement during the look is not lost.
            self._woken.clear()
            await self._poll_iteration()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._woken.wait(), timeout=self.poll_delay_s)


async def listen_for_wakes(
    redis: ArqRedis, channel: str, workers: Mapping[str, WakeableWorker]
) -> None:
    """Wake the worker of each announced queue (``workers``: arq queue key -> worker) until
    cancelled; a dropped connection ends it with the error (the caller reconnects)."""
    pubsub = redis.pubsub(ignore_subscribe_messages=True)
    await pubsub.subscribe(channel)
    try:
        while True:
            message = await pubsub.get_message(timeout=None)
            if message is None:
                continue
            data = message.get("data")
            queue = data.decode() if isinstance(data, bytes) else str(data)
            worker = workers.get(queue)
            if worker is not None:
                worker.wake()
    finally:
        with contextlib.suppress(Exception):
            await pubsub.aclose()  # type: ignore[no-untyped-call]
