"""The relay's batch publish is arq's enqueue, in one round trip: same jobs, same dedup."""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arq.constants import job_key_prefix
from arq.jobs import deserialize_job
from arq.worker import Worker, func

from services.workflow.delivery.arq_broker import (
    JOB,
    ArqBroker,
    arq_queue,
    connect,
    deserialize,
    serialize,
    wake_channel,
)
from services.workflow.delivery.arq_worker import WakeableWorker, listen_for_wakes
from services.workflow.runtime.kernel.naming import step_topic
from services.workflow.runtime.ports import OutboxMessage
from tests.integration.durable.harness import PrivateRedis

AT = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def arq_worker(kind: type[Worker], pool: Any, queue: str, deliver: Any, **options: Any) -> Worker:
    """An arq worker (or our WakeableWorker) running ``deliver`` on ``queue``."""
    return kind(
        functions=[func(deliver, name=JOB)],
        queue_name=queue,
        redis_pool=pool,
        handle_signals=False,
        keep_result=0,
        job_serializer=serialize,
        job_deserializer=deserialize,
        **options,
    )


def message(number: int, queue: str) -> OutboxMessage:
    return OutboxMessage(
        id=number,
        topic=step_topic(queue),
        key=f"step-{number}",
        payload={"step_run_id": f"step-{number}"},
        available_at=AT,
        attempts=0,
    )


async def test_a_batch_lands_as_arq_jobs_once_each(redis_url: str) -> None:
    prefix = f"t{uuid.uuid4().hex[:8]}"
    pool = await connect(redis_url)
    broker = ArqBroker(pool, prefix)
    try:
        await broker.publish_many([message(1, "integration"), message(2, "approval")])
        await broker.publish_many([message(1, "integration"), message(3, "integration")])
        integration = await pool.zrange(arq_queue(prefix, "integration"), 0, -1)
        approval = await pool.zrange(arq_queue(prefix, "approval"), 0, -1)
        assert sorted(integration) == [f"{prefix}:outbox:1".encode(), f"{prefix}:outbox:3".encode()]
        assert approval == [f"{prefix}:outbox:2".encode()]
        raw = await pool.get(f"{job_key_prefix}{prefix}:outbox:3")
        job = deserialize_job(raw, deserializer=deserialize)
        assert (job.function, job.kwargs, job.job_try) == (JOB, {}, None)
        assert list(job.args) == [
            {
                "id": 3,
                "topic": "step.integration",
                "key": "step-3",
                "payload": {"step_run_id": "step-3"},
            },
        ]
        assert 0 < await pool.pttl(f"{job_key_prefix}{prefix}:outbox:3") <= 86_400_000
        # The one-by-one path refuses the ids the batch already holds, and vice versa.
        await broker.publish(message(2, "approval"))
        assert await pool.zcard(arq_queue(prefix, "approval")) == 1
    finally:
        await pool.delete(arq_queue(prefix, "integration"), arq_queue(prefix, "approval"))
        for number in (1, 2, 3):
            await pool.delete(f"{job_key_prefix}{prefix}:outbox:{number}")
        await broker.close()


async def test_a_worker_runs_what_the_batch_published(redis_url: str) -> None:
    prefix = f"t{uuid.uuid4().hex[:8]}"
    pool = await connect(redis_url)
    broker = ArqBroker(pool, prefix)
    seen: list[dict[str, Any]] = []

    async def deliver(ctx: dict[str, Any], body: dict[str, Any]) -> None:
        seen.append(body)

    worker = arq_worker(
        Worker, pool, arq_queue(prefix, "integration"), deliver, burst=True, poll_delay=0.01
    )
    try:
        await broker.publish_many([message(n, "integration") for n in range(1, 6)])
        await worker.main()
        assert sorted(b["id"] for b in seen) == [1, 2, 3, 4, 5]
        assert await pool.zcard(arq_queue(prefix, "integration")) == 0
    finally:
        await pool.delete(arq_queue(prefix, "integration"))
        await worker.close()


async def test_an_announced_queue_is_looked_at_at_once_not_on_the_next_poll(
    redis_url: str,
) -> None:
    prefix = f"t{uuid.uuid4().hex[:8]}"
    pool = await connect(redis_url)
    broker = ArqBroker(pool, prefix)
    delivered = asyncio.Event()

    async def deliver(ctx: dict[str, Any], body: dict[str, Any]) -> None:
        delivered.set()

    queue = arq_queue(prefix, "integration")
    # poll_delay: only an announcement can bring the job in time
    worker = arq_worker(WakeableWorker, pool, queue, deliver, poll_delay=30)
    assert isinstance(worker, WakeableWorker)
    tasks = [
        asyncio.create_task(worker.main()),
        asyncio.create_task(listen_for_wakes(pool, wake_channel(prefix), {queue: worker})),
    ]
    try:
        await asyncio.sleep(0.3)  # the first poll found nothing; the worker now sleeps 30 s
        began = time.monotonic()
        await broker.publish_many([message(7, "integration")])
        await asyncio.wait_for(delivered.wait(), timeout=5)
        assert time.monotonic() - began < 2
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await pool.delete(queue)
        await worker.close()


async def test_a_poll_does_not_ask_redis_about_jobs_known_to_be_running(tmp_path: Path) -> None:
    """arq asks Redis (WATCH, EXISTS, ZSCORE) about every due job id on every poll, including
    the jobs that already run; with a poll per announcement that was most of the traffic.
    Here a job is taken with one script call, and a running one is not asked about again."""
    server = PrivateRedis(tmp_path)
    server.start()
    pool = await connect(server.url)
    prefix = "t"
    queue = arq_queue(prefix, "integration")
    started, release = asyncio.Event(), asyncio.Event()

    async def deliver(ctx: dict[str, Any], body: dict[str, Any]) -> None:
        started.set()
        await release.wait()

    def worker() -> WakeableWorker:
        made = arq_worker(WakeableWorker, pool, queue, deliver, poll_delay=30)
        assert isinstance(made, WakeableWorker)
        return made

    async def asks() -> int:
        """Questions to Redis about one job: arq's WATCH, or our script that takes the job."""
        stats = await pool.info("commandstats")
        return sum(
            int(stats.get(f"cmdstat_{name}", {}).get("calls", 0))
            for name in ("watch", "evalsha", "eval")
        )

    mine, other = worker(), worker()
    try:
        await ArqBroker(pool, prefix).publish_many([message(1, "integration")])
        await mine._poll_iteration()
        await asyncio.wait_for(started.wait(), timeout=5)
        before = await asks()
        for _ in range(5):
            await mine._poll_iteration()  # its own running job: not asked about
            await other._poll_iteration()  # asked once, then known to run elsewhere
        assert await asks() - before == 1
        assert list(other.tasks) == [] and len(mine.tasks) == 1
    finally:
        release.set()
        await mine.close()
        await other.close()
        server.kill()
