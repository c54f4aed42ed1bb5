"""Durable execution end to end on PostgreSQL + Redis, and the same six steps on DBOS.

Runs a six-node flow (input, validation, approval, integration, notification, end) whose work
nodes are trivial, N times, with a real relay and two worker processes over a private Redis
and a fresh database; then six @DBOS.step functions in a DBOS workflow on the same PostgreSQL.
Prints one JSON line: the machine, Tramita's throughput and latencies, DBOS's throughput and
the ratio. Usage: ``python bench/bench_durable.py [--n 2000] [--skip-dbos]``.
"""

from __future__ import annotations

import argparse
import asyncio
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
import sqlalchemy as sa
import uvloop

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from contracts.kernel import Actor  # noqa: E402
from contracts.workflow.types import StartRequest  # noqa: E402
from core import migrate  # noqa: E402
from core.app import Platform  # noqa: E402
from core.plugins import PluginHost  # noqa: E402
from core.settings import Settings  # noqa: E402
from services.workflow.persistence import tables as t  # noqa: E402
from services.workflow.plugin import service_of  # noqa: E402
from tests.integration.durable.harness import Fleet, PrivateRedis, install_plugin  # noqa: E402

ADMIN = os.environ.get("TRAMITA_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
BENCH_PLUGIN = ROOT / "bench" / "plugin"
IN_FLIGHT = 32
REAP_S = 0.02
"""How often the starting process looks for finished instances (to start the next ones)."""


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU a process has used so far (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def backends(database: str) -> list[int]:
    with psycopg.connect(ADMIN) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s", (database,)
        ).fetchall()
    return [int(r[0]) for r in rows]


def database_sessions(database: str) -> int:
    """Sessions ever opened on ``database`` (a pool that closes and reopens connections shows
    here; the CPU of backends that exited is not in ``cpu_ms_per_instance``)."""
    with psycopg.connect(ADMIN) as conn:
        row = conn.execute(
            "SELECT sessions FROM pg_stat_database WHERE datname = %s", (database,)
        ).fetchone()
    return int(row[0]) if row else 0


def fresh_database(name: str) -> str:
    with psycopg.connect(ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return ADMIN.rsplit("/", 1)[0] + f"/{name}"


def machine() -> dict[str, Any]:
    with psycopg.connect(ADMIN) as conn:
        pg = conn.execute("SHOW server_version").fetchone()
    return {
        "platform": host_platform.platform(),
        "cpus": os.cpu_count(),
        "python": host_platform.python_version(),
        "postgres": pg[0] if pg else None,
        "durability": "server default (synchronous_commit=on)",
    }


async def tramita(n: int, workdir: Path, in_flight: int = IN_FLIGHT) -> dict[str, Any]:
    url = fresh_database("tramita_bench_durable").replace("postgresql://", "postgresql+psycopg://")
    site = install_plugin(workdir / "site", BENCH_PLUGIN)
    sys.path.insert(0, str(site))
    host = PluginHost()
    host.discover()
    migrate.upgrade(url, host.collect().migrations)
    redis = PrivateRedis(workdir)
    redis.start()
    env = {
        **os.environ,
        "PYTHONPATH": f"{site}:{ROOT}",
        "TRAMITA_DATABASE_URL": url,
        "TRAMITA_REDIS_URL": redis.url,
        "TRAMITA_LOG_LEVEL": "WARNING",
    }
    fleet = Fleet(env=env, logdir=workdir)
    platform = await Platform.boot(
        Settings(database_url=url, redis_url=redis.url), host=host, upgrade=False
    )
    service = service_of(platform)
    queues = [
        "--queue",
        "validation",
        "--queue",
        "integration",
        "--queue",
        "notification",
        "--queue",
        "events",
    ]
    try:
        fleet.start("relay", ["relay"])
        fleet.start("w1", ["worker", *queues, "--concurrency", "25"])
        fleet.start("w2", ["worker", *queues, "--concurrency", "25", "--no-upkeep"])
        await asyncio.sleep(3)  # let the processes boot
        roles = {
            "starter": [os.getpid()],
            "relay": [fleet.procs["relay"].pid],
            "workers": [fleet.procs["w1"].pid, fleet.procs["w2"].pid],
            "redis": [redis.proc.pid] if redis.proc else [],
        }
        cpu_before = {k: sum(map(cpu_seconds, pids)) for k, pids in roles.items()}
        began = time.perf_counter()
        # Closed loop, like the DBOS run below: at most IN_FLIGHT instances unfinished at once.
        slots = asyncio.Semaphore(in_flight)
        running: set[str] = set()
        started = 0

        async def one(i: int) -> None:
            nonlocal started
            await slots.acquire()
            view = await service.engine.start(
                StartRequest(
                    definition_key="bench.six",
                    context={"amount": i + 1},
                    actor=Actor(kind="system", id="bench"),
                )
            )
            running.add(view.id)
            started += 1

        async def reap(observer: psycopg.AsyncConnection[Any]) -> None:
            # The observer has its own autocommit connection: its polling is the benchmark's,
            # not the engine's, and stays out of the engine's pool.
            while started < n or running:
                await asyncio.sleep(REAP_S)
                if not running:
                    continue
                rows = await (
                    await observer.execute(
                        "SELECT id::text FROM workflow_instances"
                        " WHERE id = ANY(%s::uuid[]) AND status = 'completed'",
                        (list(running),),
                    )
                ).fetchall()
                for (instance_id,) in rows:
                    running.discard(instance_id)
                    slots.release()

        plain_url = url.replace("postgresql+psycopg://", "postgresql://")
        async with await psycopg.AsyncConnection.connect(plain_url, autocommit=True) as observer:
            await asyncio.gather(reap(observer), *(one(i) for i in range(n)))
        elapsed = time.perf_counter() - began
        roles["postgres backends"] = backends("tramita_bench_durable")
        sessions = database_sessions("tramita_bench_durable")
        cpu = {k: sum(map(cpu_seconds, pids)) - cpu_before.get(k, 0.0) for k, pids in roles.items()}
        async with service.engine._uow() as uow:
            inst = (
                await uow.conn.execute(sa.select(t.instances.c.started_at, t.instances.c.ended_at))
            ).all()
            steps = (
                await uow.conn.execute(
                    sa.select(
                        t.step_runs.c.id,
                        t.step_runs.c.created_at,
                        t.step_runs.c.started_at,
                    ).where(t.step_runs.c.status == "succeeded")
                )
            ).all()
            sent = dict(
                (await uow.conn.execute(sa.select(t.outbox.c.key, t.outbox.c.sent_at))).all()
            )
            brokered = set(sent)
            transitions = (
                await uow.conn.execute(
                    sa.select(sa.func.count())
                    .select_from(t.history)
                    .where(t.history.c.event.like("transition.%"))
                )
            ).scalar()
    finally:
        fleet.stop_all()
        redis.kill()
        await platform.close()
    # From the transaction that scheduled a step to its handler's start (the worker records the
    # real start when it finishes the step), whether it came through the broker or directly.
    handoff = [(s.started_at - s.created_at).total_seconds() * 1000 for s in steps]
    via_broker = [
        (s.started_at - s.created_at).total_seconds() * 1000 for s in steps if s.id in brokered
    ]
    direct = [
        (s.started_at - s.created_at).total_seconds() * 1000 for s in steps if s.id not in brokered
    ]
    # The brokered path in two parts: the scheduling transaction until the relay published its
    # row (includes that transaction's own waits and commit), then broker and worker until the
    # handler started.
    to_publish = [
        (sent[s.id] - s.created_at).total_seconds() * 1000 for s in steps if sent.get(s.id)
    ]
    to_start = [(s.started_at - sent[s.id]).total_seconds() * 1000 for s in steps if sent.get(s.id)]
    latency = [(i.ended_at - i.started_at).total_seconds() * 1000 for i in inst]
    return {
        "n": n,
        "seconds": round(elapsed, 2),
        "instances_per_s": round(n / elapsed, 1),
        "transitions_per_s": round((transitions or 0) / elapsed, 1),
        "handoff_ms_p50": round(pct(handoff, 0.50), 2),
        "handoff_ms_p99": round(pct(handoff, 0.99), 2),
        "steps_direct": len(steps) - len(via_broker),
        "steps_via_broker": len(via_broker),
        "handoff_direct_ms_p50": round(pct(direct, 0.50), 2),
        "handoff_direct_ms_p99": round(pct(direct, 0.99), 2),
        "handoff_via_broker_ms_p50": round(pct(via_broker, 0.50), 2),
        "handoff_via_broker_ms_p99": round(pct(via_broker, 0.99), 2),
        "via_broker_scheduled_to_published_ms_p50": round(pct(to_publish, 0.50), 2),
        "via_broker_scheduled_to_published_ms_p99": round(pct(to_publish, 0.99), 2),
        "via_broker_published_to_started_ms_p50": round(pct(to_start, 0.50), 2),
        "via_broker_published_to_started_ms_p99": round(pct(to_start, 0.99), 2),
        "instance_ms_p50": round(pct(latency, 0.50), 1),
        "instance_ms_p99": round(pct(latency, 0.99), 1),
        "in_flight": in_flight,
        "postgres_sessions_opened": sessions,
        "cpu_ms_per_instance": {k: round(v * 1000 / n, 2) for k, v in cpu.items()},
        "processes": "1 relay + 2 workers (25 jobs per queue each) + the starting process",
    }


def dbos(n: int) -> dict[str, Any]:
    url = fresh_database("tramita_bench_dbos")
    code = DBOS_SCRIPT.replace("__URL__", url).replace("__N__", str(n))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


DBOS_SCRIPT = r"""
import asyncio, json, time
from dbos import DBOS, DBOSConfig
DBOS(config=DBOSConfig(name="bench", system_database_url="__URL__", log_level="WARNING"))

@DBOS.step()
async def step(name: str, value: int) -> int:
    return value + 1

@DBOS.workflow()
async def six(value: int) -> int:
    for name in ("input", "validation", "approval", "integration", "notification", "end"):
        value = await step(name, value)
    return value

async def main() -> None:
    DBOS.launch()
    gate = asyncio.Semaphore(32)
    async def one(i: int) -> None:
        async with gate:
            await six(i)
    began = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(__N__)))
    elapsed = time.perf_counter() - began
    print(json.dumps({"n": __N__, "seconds": round(elapsed, 2),
                      "instances_per_s": round(__N__ / elapsed, 1)}))
    DBOS.destroy()

asyncio.run(main())
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--skip-dbos", action="store_true")
    parser.add_argument(
        "--in-flight", type=int, default=IN_FLIGHT, help="unfinished instances at once (Tramita)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ours = uvloop.run(tramita(args.n, Path(tmp), args.in_flight))
    print(json.dumps({"progress": "tramita done", "tramita": ours}), file=sys.stderr)
    result: dict[str, Any] = {"bench": "durable_six_node", "machine": machine(), "tramita": ours}
    if not args.skip_dbos:
        theirs = dbos(args.n)
        result["dbos"] = theirs
        result["ratio_vs_dbos"] = round(ours["instances_per_s"] / theirs["instances_per_s"], 2)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
