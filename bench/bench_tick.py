"""Benchmark the timer tick on PostgreSQL: 100,000 due timers, timers fired per second.

A throwaway database is created and migrated; one instance of a ``start -> timer (PT1H) ->
end`` workflow is started through the engine, then cloned with ``generate_series`` (instance
rows and their pending timer) so every timer is a real one ``decide()`` accepts. The clock
moves past the due time and ``Engine.tick`` fires them all, in batches of 500 per transaction
(``SKIP LOCKED``), as in production; prints one JSON line. ``TRAMITA_BENCH_TICKERS=N`` runs N
tick processes at once (real processes, each booted before the clock starts), and reports
the figure per process (with the process's own CPU per timer) and for all together.

PostgreSQL's own CPU per fired timer (``server_cpu_us_per_timer``) is read from ``/proc``:
utime + stime of the backends serving the bench's database (their pids from
``pg_stat_activity``), sampled once every tick process is ready and again once all have fired
and before any closes, so set-up is not in it. It is ``null``, with the reason in
``server_cpu_unavailable``, where that cannot be read honestly (the server on another machine
or in another pid namespace, no ``/proc``, a backend gone before the second sample).
``server_aux_cpu_s`` is the server's background processes (WAL writer, checkpointer, ...) over
the same span: server-wide, so anything else using the server is in it.

Run: ``python bench/bench_tick.py`` (``TRAMITA_BENCH_TIMERS`` to change the count).
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psycopg  # after the path set-up above

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.app import Platform
from core.clock import FixedClock
from core.ids import UUIDv7Gen
from core.settings import Settings

ADMIN = os.environ.get("TRAMITA_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
TIMERS = int(os.environ.get("TRAMITA_BENCH_TIMERS", "100000"))
TICKERS = int(os.environ.get("TRAMITA_BENCH_TICKERS", "1"))
T0 = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
FLOW = {
    "format": 1,
    "key": "bench.wait",
    "name": "Wait an hour",
    "protocol_prefix": "TIK",
    "nodes": [
        {"id": "begin", "type": "start", "next": "wait"},
        {"id": "wait", "type": "timer", "duration": "PT1H", "next": "done"},
        {"id": "done", "type": "end"},
    ],
}
CLONE = """
INSERT INTO workflow_instances (id, tenant, version_id, definition_key, definition_version,
    protocol, status, current_nodes, state, context, subject_type, subject_id, business_key,
    author_id, due_at, started_at, updated_at, ended_at, row_version)
SELECT md5('i' || g)::uuid, tenant, version_id, definition_key, definition_version,
       'TIK-2026-C' || lpad(g::text, 7, '0'), status, current_nodes, state, context,
       subject_type, subject_id, business_key, author_id, due_at, started_at, updated_at,
       ended_at, row_version
FROM workflow_instances, generate_series(1, %(n)s) g WHERE id = %(seed)s::uuid;
INSERT INTO workflow_timers (id, instance_id, token_id, node_id, timer_id, attempt_group,
    due_at, status, fired_at)
SELECT md5('tm' || g)::uuid, md5('i' || g)::uuid, token_id, node_id, timer_id, attempt_group,
       due_at + (g %% 60) * interval '1 second', status, fired_at
FROM workflow_timers, generate_series(1, %(n)s) g WHERE instance_id = %(seed)s::uuid;
ANALYZE;
"""


_STAT = """SELECT pid, datname = %(db)s, backend_type = 'client backend' FROM pg_stat_activity
WHERE pid <> pg_backend_pid() AND (datname = %(db)s OR datname IS NULL)"""


def _ticks(pid: int) -> int | None:
    """utime + stime of a postgres process, in clock ticks (``None``: not ours to read)."""
    try:
        if Path(f"/proc/{pid}/comm").read_text().strip() != "postgres":
            return None  # that pid is not the server's here (another host or pid namespace)
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[11]) + int(fields[12])  # fields 14 and 15 of proc(5)


class ServerCpu:
    """The CPU of the server's processes between ``start`` and ``stop``, from ``/proc``."""

    def __init__(self, admin: psycopg.Connection[Any], db: str) -> None:
        self._admin, self._db = admin, db
        self._before: dict[int, tuple[bool, int]] = {}
        self.why: str | None = None
        self.backends = self.aux = 0.0

    def _sample(self) -> dict[int, tuple[bool, int]]:
        rows = self._admin.execute(_STAT, {"db": self._db}).fetchall()
        taken = {pid: (mine, _ticks(pid)) for pid, mine, client in rows if mine or not client}
        unread = sorted(pid for pid, (_, ticks) in taken.items() if ticks is None)
        if unread and self.why is None:
            self.why = f"no postgres process of this machine's /proc has pid {unread[0]}"
        return {pid: (mine, ticks) for pid, (mine, ticks) in taken.items() if ticks is not None}

    def start(self) -> None:
        self._before = self._sample()

    def stop(self) -> None:
        """A backend first seen here started while firing: all of its CPU is counted."""
        after = self._sample()
        if not any(mine for mine, _ in after.values()) and self.why is None:
            self.why = "no backend of the bench's database after firing"
        gone = [pid for pid, (mine, _) in self._before.items() if mine and pid not in after]
        if gone and self.why is None:
            self.why = f"backend {gone[0]} exited while firing: its CPU could not be read"
        hz = os.sysconf("SC_CLK_TCK")
        for pid, (mine, ticks) in after.items():
            spent = (ticks - self._before.get(pid, (mine, 0))[1]) / hz
            if mine:
                self.backends += spent
            elif pid in self._before:  # a background process started meanwhile: not counted
                self.aux += spent

    def figures(self, fired: int) -> dict[str, object]:
        if self.why is not None:
            return {"server_cpu_us_per_timer": None, "server_cpu_unavailable": self.why}
        return {
            "server_cpu_s": round(self.backends, 2),
            "server_cpu_us_per_timer": round(self.backends / fired * 1e6),
            "server_aux_cpu_s": round(self.aux, 2),
        }


def _settled(admin: psycopg.Connection[Any], db: str) -> None:
    """Wait (up to 10 s) until the set-up's backends have left, so only the ticks' are seen."""
    query = "SELECT count(*) FROM pg_stat_activity WHERE datname = %(db)s"
    for _ in range(100):
        if admin.execute(query, {"db": db}).fetchone() == (0,):
            return
        time.sleep(0.1)


async def _run(url: str) -> dict[str, object]:
    from services.workflow.bootstrap import service_of

    clock = FixedClock(T0)
    booted = await Platform.boot(Settings(database_url=url), clock=clock, ids=UUIDv7Gen())
    try:
        engine = service_of(booted).engine
        await engine.publisher.publish(FLOW, actor=Actor.system("bench"))
        seed = await engine.start(StartRequest(definition_key="bench.wait"))
        with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as conn:
            for statement in CLONE.split(";\n"):
                if statement.strip():
                    conn.execute(statement, {"n": TIMERS - 1, "seed": seed.id})  # type: ignore[arg-type]
    finally:
        await booted.close()
    db = url.rsplit("/", 1)[1]
    with psycopg.connect(ADMIN, autocommit=True) as admin:
        _settled(admin, db)
        return _fire(url, ServerCpu(admin, db))


def _fire(url: str, server: ServerCpu) -> dict[str, object]:
    """Start the tick processes, let them fire everything at once, collect their figures."""
    later = (T0 + timedelta(hours=2)).isoformat()
    procs = [
        subprocess.Popen(
            [sys.executable, __file__, "--tick", url, later],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(TICKERS)
    ]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    load = [_load()]
    server.start()
    t0 = time.perf_counter()
    _tell(procs, "go")
    each = [json.loads(proc.stdout.readline()) for proc in procs if proc.stdout is not None]
    server.stop()  # every process has fired, none has closed its connections yet
    load.append(_load())
    _tell(procs, "close")
    for proc in procs:
        proc.communicate()
    elapsed = time.perf_counter() - t0
    fired = sum(e["fired"] for e in each)
    assert fired == TIMERS, (fired, TIMERS)
    return {
        "fired": fired,
        "seconds": round(elapsed, 1),
        "timers_per_s": round(fired / elapsed),
        "per_process": [
            {k: e[k] for k in ("fired", "seconds", "timers_per_s", "cpu_us_per_timer")}
            for e in each
        ],
        **server.figures(fired),
        "load_1min": load,
    }


def _load() -> float | None:
    """The machine's 1-minute load average (``/proc/loadavg``), when it can be read."""
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _tell(procs: list[subprocess.Popen[str]], word: str) -> None:
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write(word + "\n")
        proc.stdin.flush()


async def _tick(url: str, later: str) -> None:
    """One tick process: boot, say ready, wait for go, tick everything, print its figures,
    wait for close (the server's CPU is read meanwhile, while its backend is still there)."""
    from services.workflow.bootstrap import service_of

    clock = FixedClock(datetime.fromisoformat(later))
    booted = await Platform.boot(
        Settings(database_url=url), clock=clock, ids=UUIDv7Gen(), role="tick"
    )  # as `tramita tick` boots (its collector settled, core.heap)
    try:
        engine = service_of(booted).engine
        print("ready", flush=True)
        sys.stdin.readline()
        t0, cpu0 = time.perf_counter(), time.process_time()
        fired = await engine.tick(limit=500)
        seconds, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        rate = round(fired / seconds) if seconds else 0
        # The tick process's own CPU per timer (PostgreSQL's is not in it): steadier than the
        # wall-clock rate on a machine doing other work.
        per_timer = round(cpu / fired * 1e6) if fired else 0
        figures = {
            "seconds": round(seconds, 2),
            "timers_per_s": rate,
            "cpu_us_per_timer": per_timer,
        }
        print(json.dumps({"fired": fired, **figures}), flush=True)
        sys.stdin.readline()
    finally:
        await booted.close()


def main() -> None:
    name = f"tramita_bench_tick_{os.getpid()}"
    with psycopg.connect(ADMIN, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        pg_version = admin.execute("SHOW server_version").fetchone()[0]  # type: ignore[index]
    url = f"{ADMIN.rsplit('/', 1)[0]}/{name}".replace("postgresql://", "postgresql+psycopg://", 1)
    try:
        figures = asyncio.run(_run(url))
    finally:
        with psycopg.connect(ADMIN, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    print(
        json.dumps(
            {
                "bench": "tick",
                "timers": TIMERS,
                "tickers": TICKERS,
                **figures,
                "machine": {
                    "platform": platform.platform(),
                    "cpus": os.cpu_count(),
                    "python": platform.python_version(),
                    "postgres": pg_version,
                },
            }
        )
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--tick"]:
        asyncio.run(_tick(sys.argv[2], sys.argv[3]))
    else:
        main()
