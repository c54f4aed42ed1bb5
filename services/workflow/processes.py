"""The long-running processes of a production deployment: relay, workers and their upkeep.

Every process is stateless: it can be killed at any moment (SIGKILL included) and another one
carries on from what the database holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Awaitable, Callable
from typing import Any

import psycopg
import redis.exceptions
import structlog
from arq.worker import func

from services.workflow.bootstrap import WorkflowService
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
from services.workflow.delivery.relay import Relay, Sweeper
from services.workflow.placements import database_label
from services.workflow.runtime.kernel.naming import OUTBOX_CHANNEL
from services.workflow.runtime.ports import OutboxMessage
from services.workflow.settings import WorkflowSettings, fault

log = structlog.get_logger("tramita.processes")
RECONNECT_S = 1.0


def stop_event() -> asyncio.Event:
    """Set on SIGTERM/SIGINT: processes finish the job in hand and leave."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    return stop


async def periodically(
    stop: asyncio.Event, every_s: float, action: Callable[[], Awaitable[Any]], name: str
) -> None:
    while not stop.is_set():
        try:
            await action()
        except Exception as exc:  # noqa: BLE001 - upkeep retries on its next round
            log.warning("upkeep_failed", task=name, error_type=type(exc).__name__)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=every_s)


async def for_each_database(
    services: list[WorkflowService],
    stop: asyncio.Event,
    run: Callable[[WorkflowService, asyncio.Event], Awaitable[None]],
    name: str,
) -> None:
    """Run ``run`` for every database's service side by side (``services.workflow.placements``):
    one that fails (its database stopped answering) is logged and started again after a pause,
    while the others go on. With one database, ``run`` is simply awaited."""
    if len(services) == 1:
        await run(services[0], stop)
        return

    async def supervised(service: WorkflowService) -> None:
        while not stop.is_set():
            try:
                await run(service, stop)
            except Exception as exc:  # noqa: BLE001 - only this database's tenants wait
                log.warning(
                    f"{name}_database_unavailable",
                    database=database_label(service.database),
                    error_type=type(exc).__name__,
                )
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), timeout=RECONNECT_S)

    await asyncio.gather(*(supervised(service) for service in services))


def _pg_conninfo(database_url: str) -> str | None:
    if not database_url.startswith("postgresql"):
        return None
    return "postgresql://" + database_url.split("://", 1)[1]


def _exit_after_publish(config: WorkflowSettings) -> Callable[[int], None] | None:
    limit = fault(config, "relay_exit_after_publish")
    if limit is None:
        return None

    def hook(batches: int) -> None:
        if batches >= limit:
            log.warning("fault_injected", fault="relay_exit_after_publish", batches=batches)
            os._exit(70)  # published, not marked: the next relay publishes these rows again

    return hook


async def run_relay(service: WorkflowService, stop: asyncio.Event) -> None:
    """Publish committed outbox rows to Redis; wake on NOTIFY, poll for delayed rows."""
    settings, config = service.platform.settings, service.settings
    assert settings.redis_url, "the relay needs TRAMITA_REDIS_URL"
    pool = await connect(settings.redis_url)
    broker = ArqBroker(pool, config.redis_prefix)
    relay = Relay(
        service.uow_factory,
        broker,
        service.platform.clock,
        after_publish=_exit_after_publish(config),
    )
    conninfo = _pg_conninfo(service.database.url.render_as_string(hide_password=False))
    listener = (
        await psycopg.AsyncConnection.connect(conninfo, autocommit=True) if conninfo else None
    )
    if listener is not None:
        await listener.execute(f"LISTEN {OUTBOX_CHANNEL}")
    log.info("relay_started", listen=listener is not None)
    try:
        while not stop.is_set():
            try:
                while await relay.pump() == relay.batch:
                    pass
            except (redis.exceptions.RedisError, OSError) as exc:
                log.warning("relay_broker_unavailable", error_type=type(exc).__name__)
                await asyncio.sleep(RECONNECT_S)
                continue
            if listener is None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), timeout=config.relay_poll_s)
                continue
            async for _ in listener.notifies(timeout=config.relay_poll_s, stop_after=1):
                pass
    finally:
        if listener is not None:
            await listener.close()
        await broker.close()


async def _deliver(ctx: dict[str, Any], message: dict[str, Any]) -> Any:
    outbox = OutboxMessage(
        id=int(message["id"]),
        topic=str(message["topic"]),
        key=str(message["key"]),
        payload=dict(message["payload"]),
        available_at=ctx["clock"].now(),
        attempts=0,
    )
    return await ctx["dispatch"](outbox)


async def run_workers(
    service: WorkflowService,
    queues: list[str],
    stop: asyncio.Event,
    *,
    concurrency: int,
    maintenance: bool = True,
) -> None:
    """Consume the given queues until stopped; reconnect when Redis goes away."""
    settings, config = service.platform.settings, service.settings
    assert settings.redis_url, "workers need TRAMITA_REDIS_URL"
    dispatcher = service.dispatcher
    if config.eager_chain > 0:
        # A finished step hands the next one on these queues to this same worker directly.
        dispatcher = service.handing_over(frozenset(queues), config.eager_chain)
    upkeep: list[asyncio.Task[None]] = []
    if maintenance:
        sweeper = Sweeper(
            service.uow_factory,
            service.platform.clock,
            recover=service.executor.recover_expired,
            stranded_after=config.stranded_after,
            also=(service.operations.sweep,),
            pools=config.pools,
        )
        upkeep = [
            asyncio.create_task(
                periodically(stop, config.sweep_interval_s, sweeper.sweep, "sweep")
            ),
            asyncio.create_task(
                periodically(stop, config.tick_interval_s, service.engine.tick, "tick")
            ),
        ]
    try:
        while not stop.is_set():
            pool = None
            workers: list[WakeableWorker] = []
            running: list[asyncio.Task[None]] = []
            try:
                pool = await connect(settings.redis_url)
                workers = [
                    WakeableWorker(
                        functions=[func(_deliver, name=JOB)],
                        queue_name=arq_queue(config.redis_prefix, queue),
                        redis_pool=pool,
                        max_jobs=concurrency,
                        job_timeout=config.job_timeout_s,
                        poll_delay=config.worker_poll_s,
                        handle_signals=False,
                        keep_result=3600,
                        max_tries=5,
                        job_serializer=serialize,
                        job_deserializer=deserialize,
                        log_results=False,
                        ctx={"dispatch": dispatcher, "clock": service.platform.clock},
                    )
                    for queue in queues
                ]
                log.info("workers_started", queues=queues, concurrency=concurrency)
                by_queue = {
                    arq_queue(config.redis_prefix, q): w
                    for q, w in zip(queues, workers, strict=True)
                }
                wakes = listen_for_wakes(pool, wake_channel(config.redis_prefix), by_queue)
                running = [asyncio.create_task(w.main()) for w in workers]
                running.append(asyncio.create_task(wakes))
                stopper = asyncio.create_task(stop.wait())
                done, _ = await asyncio.wait(
                    [*running, stopper], return_when=asyncio.FIRST_COMPLETED
                )
                for task in done:
                    if task is not stopper and task.exception() is not None:
                        raise task.exception()  # type: ignore[misc]
            except (redis.exceptions.RedisError, OSError) as exc:
                log.warning("worker_broker_unavailable", error_type=type(exc).__name__)
                await asyncio.sleep(RECONNECT_S)
            finally:
                for task in running if workers else []:
                    task.cancel()
                # The jobs of a lost connection end cancelled: their step runs keep their
                # leases, which expire and are recovered as failed attempts (then retried).
                for worker in workers:
                    with contextlib.suppress(Exception, asyncio.CancelledError):
                        await worker.close()
                if pool is not None:
                    with contextlib.suppress(Exception, asyncio.CancelledError):
                        await pool.aclose()
    finally:
        for task in upkeep:
            task.cancel()
        for task in upkeep:
            with contextlib.suppress(asyncio.CancelledError):
                await task
