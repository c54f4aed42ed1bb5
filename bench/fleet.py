"""The six-node flow's production stack for the benchmarks: a fresh PostgreSQL database, a
private Redis, the real ``tramita relay`` and worker processes, and a booted platform whose
engine starts instances; plus the measuring helpers they share (CPU per process, percentiles,
the machine). ``bench_durable.py`` and ``bench_tenants.py`` run on it."""

from __future__ import annotations

import asyncio
import os
import platform as host_platform
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from core import migrate  # noqa: E402
from core.app import Platform  # noqa: E402
from core.plugins import PluginHost  # noqa: E402
from core.settings import Settings  # noqa: E402
from services.workflow.bootstrap import service_of  # noqa: E402
from tests.integration.durable.harness import Fleet, PrivateRedis, install_plugin  # noqa: E402

ADMIN = os.environ.get("TRAMITA_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
BENCH_PLUGIN = ROOT / "bench" / "plugin"
WORKERS = 2
JOB_SLOTS = 50
"""Jobs per queue over all worker processes."""
BOOT_TIMEOUT_S = 180.0
QUEUES = ["validation", "integration", "notification", "events"]
"""The queues the six-node flow's worker processes consume."""


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


def connected_to(pid: int, port: int) -> bool:
    """Whether process ``pid`` holds a TCP connection to ``port`` on this host (a relay or a
    worker connects to its broker once it has booted)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    sockets: set[str] = set()
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            sockets.add(target[8:-1])
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[2].rsplit(":", 1)[1], 16) == port and fields[9] in sockets:
            return True
    return False


async def booted(pids: list[int], port: int, timeout_s: float = BOOT_TIMEOUT_S) -> None:
    """Wait until every process has connected to the broker at ``port`` (it has booted)."""
    deadline = time.perf_counter() + timeout_s
    while not all(connected_to(pid, port) for pid in pids):
        if time.perf_counter() > deadline:
            raise RuntimeError("the relay and workers did not boot")
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.5)  # their first poll


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


@dataclass
class Stack:
    """A running six-node stack: the engine's service, an observer connection of its own (the
    benchmark's polling stays out of the engine's pool), the process ids by role."""

    service: Any
    observer: psycopg.AsyncConnection[Any]
    roles: dict[str, list[int]]
    database: str
    concurrency: str


@asynccontextmanager
async def six_node_stack(
    workdir: Path,
    *,
    workers: int = WORKERS,
    database: str = "tramita_bench_durable",
    pools: tuple[str, ...] = (),
) -> AsyncIterator[Stack]:
    """Start the stack on a fresh database; yields once every process has booted. Each tenant
    of ``pools`` gets its own worker pool (``TRAMITA_WF_TENANT_POOLS``, one more worker process
    serving ``Q@tenant`` for the flow's step queues)."""
    if pools:
        # Every process reads the same setting: the starting process's engine routes the steps.
        os.environ["TRAMITA_WF_TENANT_POOLS"] = ",".join(pools)
    url = fresh_database(database).replace("postgresql://", "postgresql+psycopg://")
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
    queues = [arg for queue in QUEUES for arg in ("--queue", queue)]
    plain_url = url.replace("postgresql+psycopg://", "postgresql://")
    try:
        fleet.start("relay", ["relay"])
        # The same 50 jobs per queue in all, split among the worker processes; one of them
        # also runs the upkeep (sweeper, timers).
        concurrency = str(JOB_SLOTS // workers)
        for index in range(workers):
            upkeep = [] if index == 0 else ["--no-upkeep"]
            fleet.start(f"w{index + 1}", ["worker", *queues, "--concurrency", concurrency, *upkeep])
        for tenant in pools:
            own = [arg for q in QUEUES if q != "events" for arg in ("--queue", f"{q}@{tenant}")]
            fleet.start(
                f"pool-{tenant}", ["worker", *own, "--concurrency", concurrency, "--no-upkeep"]
            )
        # The CPU window opens once every process has booted (imports, catalogs, its turn to
        # publish the registered definitions): a few seconds of CPU each, which a fixed sleep
        # left inside the window on a loaded machine (counted as per-instance work).
        await booted([fleet.procs[name].pid for name in fleet.procs], redis.port)
        roles = {
            "starter": [os.getpid()],
            "relay": [fleet.procs["relay"].pid],
            "workers": [fleet.procs[f"w{index + 1}"].pid for index in range(workers)],
            "tenant pools": [fleet.procs[f"pool-{tenant}"].pid for tenant in pools],
            "redis": [redis.proc.pid] if redis.proc else [],
        }
        async with await psycopg.AsyncConnection.connect(plain_url, autocommit=True) as observer:
            yield Stack(service_of(platform), observer, roles, database, concurrency)
    finally:
        fleet.stop_all()
        redis.kill()
        await platform.close()
