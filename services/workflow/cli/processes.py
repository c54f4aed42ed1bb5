"""``tramita relay`` and ``tramita worker``: the production processes (PostgreSQL + Redis)."""

from __future__ import annotations

import asyncio

import click

from contracts.errors import NotFound
from core.app import Platform
from core.cli import run_async
from services.workflow.bootstrap import WorkflowService, service_of
from services.workflow.cli.text import gettext as _
from services.workflow.handles import PLACEMENTS_KEY
from services.workflow.placements import every_service
from services.workflow.processes import for_each_database, run_relay, run_workers, stop_event
from services.workflow.runtime.kernel.naming import pool_of
from services.workflow.settings import WORKER_QUEUES


def _require_redis(platform: Platform) -> None:
    if platform.settings.redis_url is None:
        raise click.ClickException(
            _(
                "TRAMITA_REDIS_URL is not set: with the embedded defaults use `tramita run`, "
                "which delivers in-process"
            )
        )


@click.command("relay")
def relay_cmd() -> None:
    """Deliver committed outbox rows to Redis (run one or more; they share the work)."""

    async def _run() -> None:
        platform = await Platform.boot(role="relay")
        try:
            _require_redis(platform)
            await for_each_database(databases_of(platform), stop_event(), run_relay, "relay")
        finally:
            await platform.close()

    run_async(_run)


def databases_of(platform: Platform) -> list[WorkflowService]:
    """The home service and one per placed database (``services.workflow.placements``)."""
    return every_service(service_of(platform), platform.extras.get(PLACEMENTS_KEY, {}))


def servable_queues(service: WorkflowService) -> frozenset[str]:
    """The broker queues a worker may consume: the built-in ones and every registered queue
    (a module's service tasks run on a queue it registered, e.g. ``alvara.tributos``)."""
    return frozenset(WORKER_QUEUES) | frozenset(service.platform.registrations.queues)


def _check_queues(service: WorkflowService, queues: tuple[str, ...]) -> None:
    """Refuse, before serving anything, a queue nobody could send to: unknown, or ``Q@tenant``
    for a tenant without a pool of its own (``naming.routed_queue`` never sends there)."""
    split = {name: pool_of(name) for name in queues}
    unknown = sorted(n for n, (q, _tenant) in split.items() if q not in servable_queues(service))
    if unknown:
        raise NotFound(
            f"unknown worker queue '{unknown[0]}': neither built in nor registered by a module",
            queue=unknown[0],
        )
    pools = service.settings.pools
    for name, (_queue, tenant) in sorted(split.items()):
        if tenant is not None and tenant not in pools:
            raise NotFound(
                _(
                    "worker queue '%(queue)s' is for tenant '%(tenant)s', which has no pool of "
                    "its own: list it in TRAMITA_WF_TENANT_POOLS"
                )
                % {"queue": name, "tenant": tenant},
                queue=name,
                tenant=tenant,
            )


@click.command("worker")
@click.option(
    "--queue",
    "queues",
    multiple=True,
    required=True,
    metavar="QUEUE",
    help=(
        "Queue(s) to consume; repeat the option for several. A built-in queue ("
        + ", ".join(WORKER_QUEUES)
        + ") or one a module registered for its service tasks; QUEUE@TENANT serves that "
        "tenant's steps of QUEUE alone (TRAMITA_WF_TENANT_POOLS)."
    ),
)
@click.option("--concurrency", type=int, default=None, help="Jobs at once per queue.")
@click.option("--no-upkeep", is_flag=True, help="Do not run the sweeper and the timer tick.")
def worker_cmd(queues: tuple[str, ...], concurrency: int | None, no_upkeep: bool) -> None:
    """Run steps from the given queues; also sweeps expired leases and fires due timers."""

    async def _run() -> None:
        platform = await Platform.boot(role="worker")
        try:
            _require_redis(platform)
            service = service_of(platform)
            _check_queues(service, queues)

            async def serve(placed: WorkflowService, stop: asyncio.Event) -> None:
                await run_workers(
                    placed,
                    list(queues),
                    stop,
                    concurrency=concurrency or service.settings.concurrency,
                    maintenance=not no_upkeep,
                )

            await for_each_database(databases_of(platform), stop_event(), serve, "worker")
        finally:
            await platform.close()

    run_async(_run)


COMMANDS = [relay_cmd, worker_cmd]
