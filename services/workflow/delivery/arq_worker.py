"""arq's worker, woken by the relay's announcements instead of polling every few milliseconds.

arq looks for due jobs in a loop with a fixed sleep (``poll_delay``): a short sleep costs one
Redis round trip per queue per tick even when idle, a long one sets the hand-off latency. Here
the sleep ends early when the relay announces the queue on the wake channel (see
``arq_broker.wake_channel``), so the poll delay is only the fallback for a lost announcement.

A poll reads the queue's due job ids and arq takes each one with an optimistic Redis
transaction (WATCH, EXISTS, ZSCORE, MULTI, PSETEX, EXEC: five round trips, three to learn
that it already runs) — including the jobs this very worker runs and those another worker
started, which stay in the queue until they finish. With a few dozen jobs running and a poll
per announcement, that was most of the Redis traffic. The worker here skips its own running
jobs without asking, takes a job with one script (``TAKE``: the same checks and the same
in-progress key, atomically), and does not ask again for ``ELSEWHERE_S`` about a job it found
running elsewhere (a worker that died with it leaves arq's in-progress key to expire much
later than that anyway). This replaces arq 0.28's ``Worker.start_jobs`` and uses its
bookkeeping (``sem``, ``job_counter``, ``tasks``, ``run_job``): the arq version is pinned in
``constraints.txt``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Mapping
from typing import Any

import structlog
from arq.connections import ArqRedis
from arq.constants import in_progress_key_prefix
from arq.utils import timestamp_ms
from arq.worker import Worker

log = structlog.get_logger("tramita.worker")


ELSEWHERE_S = 1.0
"""How long a job found running in another worker is not looked at again."""


TAKE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local score = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not score or tonumber(score) > tonumber(ARGV[2]) then return false end
redis.call('PSETEX', KEYS[1], ARGV[3], '1')
return score
"""
"""Take a due job unless it runs already: KEYS (in-progress key, queue), ARGV (job id, now in
ms, in-progress timeout in ms); the job's score, or nil when it is not to be run here (it runs
elsewhere, it finished and left the queue, or it was put back for later)."""


class WakeableWorker(Worker):
    """An arq ``Worker`` whose wait between polls ends on ``wake()``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._woken = asyncio.Event()
        self._elsewhere: dict[bytes, float] = {}
        self._take: Any = None

    async def start_jobs(self, job_ids: list[bytes]) -> None:
        """arq's ``start_jobs`` with one round trip per job it has not seen running."""
        if self._take is None:
            self._take = self.pool.register_script(TAKE)
        now = time.monotonic()
        for job_id_b in job_ids:
            job_id = job_id_b.decode()
            if job_id in self.tasks or self._elsewhere.get(job_id_b, 0.0) > now:
                continue
            await self.sem.acquire()
            if self.job_counter >= self.max_jobs:
                self.sem.release()
                break
            self.job_counter += 1
            score = await self._take(
                keys=[in_progress_key_prefix + job_id, self.queue_name],
                args=[job_id, timestamp_ms(), int(self.in_progress_timeout_s * 1000)],
            )
            if score is None:
                self.job_counter -= 1
                self.sem.release()
                self._elsewhere[job_id_b] = now + ELSEWHERE_S
                continue
            task = self.loop.create_task(self.run_job(job_id, int(float(score))))
            task.add_done_callback(lambda _: self._release_sem_dec_counter_on_complete())
            self.tasks[job_id] = task
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
