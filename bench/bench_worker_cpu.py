"""The CPU a worker spends per instance of the six-node flow, measured in one process.

``bench_durable.py`` measures the real fleet (relay, Redis, worker processes) against the wall
clock, which a loaded machine makes noisy. This runs the same flow (``bench/plugin``) on a fresh
PostgreSQL database with the delivery in the process: instances are started in batches of
``--batch``, the relay publishes their outbox rows to an in-memory broker, and each message is
dispatched as a worker dispatches it (the next step on the worker's queues handed over
directly). The process CPU (``time.process_time``) of each part is summed separately, so the
worker's share — the dispatch — is read apart from the starting and the relaying; the database
server's CPU is not in it. ``--profile FILE`` writes a cProfile of the dispatch phase.

Prints one JSON line: the machine, milliseconds of CPU per instance for each part.
Usage: ``python bench/bench_worker_cpu.py [--n 300] [--batch 32] [--profile out.prof]``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import platform as host_platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from contracts.kernel import Actor  # noqa: E402
from contracts.workflow.types import StartRequest  # noqa: E402
from core import migrate  # noqa: E402
from core.app import Platform  # noqa: E402
from core.logging import configure_logging  # noqa: E402
from core.plugins import PluginHost  # noqa: E402
from core.settings import Settings  # noqa: E402
from services.workflow.bootstrap import service_of  # noqa: E402
from tests.integration.durable.harness import install_plugin  # noqa: E402

ADMIN = os.environ.get("TRAMITA_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
BENCH_PLUGIN = ROOT / "bench" / "plugin"
DATABASE = f"tramita_bench_worker_cpu_{os.getpid()}"
"""Its own database per run, dropped at the end (runs side by side never share one)."""
QUEUES = frozenset({"validation", "integration", "notification", "events"})
"""The queues ``bench_durable.py``'s workers consume."""
EAGER_CHAIN = 32


def fresh_database() -> str:
    with psycopg.connect(ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DATABASE}"')
    return ADMIN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://") + (
        f"/{DATABASE}"
    )


def machine() -> dict[str, Any]:
    with psycopg.connect(ADMIN) as conn:
        pg = conn.execute("SHOW server_version").fetchone()
    return {
        "platform": host_platform.platform(),
        "cpus": os.cpu_count(),
        "python": host_platform.python_version(),
        "postgres": pg[0] if pg else None,
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def worker_dispatch(service: Any) -> Any:
    """The dispatch of a worker consuming ``QUEUES`` (the next step there handed over)."""
    return service.handing_over(QUEUES, EAGER_CHAIN)


def instrument(callgrind: bool, state: str) -> None:
    """Under ``valgrind --tool=callgrind --instr-atstart=no``: count instructions only while
    the relay and the dispatch run (``callgrind_control -i on|off``)."""
    if callgrind:
        subprocess.run(["callgrind_control", "-i", state, str(os.getpid())], check=True)


async def run(
    n: int, batch: int, workdir: Path, profile: Path | None, callgrind: bool = False
) -> dict[str, Any]:
    configure_logging(Settings(log_level="WARNING"))  # as bench_durable's workers
    url = fresh_database()
    site = install_plugin(workdir / "site", BENCH_PLUGIN)
    sys.path.insert(0, str(site))
    host = PluginHost()
    host.discover()
    migrate.upgrade(url, host.collect().migrations)
    platform = await Platform.boot(Settings(database_url=url), host=host, upgrade=False)
    service = service_of(platform)
    dispatch = worker_dispatch(service)
    relay, broker = service.delivery.relay, service.delivery.broker
    cpu = {"start": 0.0, "relay": 0.0, "dispatch": 0.0}
    profiler = cProfile.Profile(time.process_time) if profile else None
    messages = 0

    async def start(i: int) -> None:
        await service.engine.start(
            StartRequest(
                definition_key="bench.six",
                context={"amount": i + 1},
                actor=Actor(kind="system", id="bench"),
            )
        )

    async def settle() -> None:
        nonlocal messages
        while True:
            began = time.process_time()
            published = await relay.pump()
            cpu["relay"] += time.process_time() - began
            if not published and not broker.queue:
                return
            while broker.queue:
                message = broker.queue.popleft()
                began = time.process_time()
                if profiler:
                    profiler.enable()
                await dispatch(message)
                if profiler:
                    profiler.disable()
                cpu["dispatch"] += time.process_time() - began
                messages += 1

    try:
        await start(0)  # warm caches (the compiled model, statements) outside the figures
        await settle()
        cpu = dict.fromkeys(cpu, 0.0)
        messages = 0
        for first in range(0, n, batch):
            began = time.process_time()
            for i in range(first, min(n, first + batch)):
                await start(i)
            cpu["start"] += time.process_time() - began
            instrument(callgrind, "on")
            await settle()
            instrument(callgrind, "off")
        with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://")) as conn:
            row = conn.execute(
                "SELECT count(*) FILTER (WHERE status = 'completed'), count(*)"
                " FROM workflow_instances"
            ).fetchone()
    finally:
        await platform.close()
        with psycopg.connect(ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
    if profiler and profile:
        profiler.dump_stats(str(profile))
    return {
        "n": n,
        "batch": batch,
        "completed": f"{row[0] if row else 0}/{row[1] if row else 0}",
        "messages_dispatched": messages,
        "cpu_ms_per_instance": {k: round(v * 1000 / n, 3) for k, v in cpu.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--profile", type=Path, default=None, help="cProfile of the dispatch")
    parser.add_argument(
        "--callgrind",
        action="store_true",
        help="run under valgrind --tool=callgrind --instr-atstart=no: instructions of the"
        " relay and the dispatch only",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        result = asyncio.run(run(args.n, args.batch, Path(tmp), args.profile, args.callgrind))
    print(json.dumps({"bench": "worker_cpu_six_node", "machine": machine(), **result}))


if __name__ == "__main__":
    main()
