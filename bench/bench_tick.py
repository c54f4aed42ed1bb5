"""Benchmark the timer tick on PostgreSQL: 100,000 due timers, timers fired per second.

A throwaway database is created and migrated; one instance of a ``start -> timer (PT1H) ->
end`` workflow is started through the engine, then cloned with ``generate_series`` (instance
rows and their pending timer) so every timer is a real one ``decide()`` accepts. The clock
moves past the due time and ``Engine.tick`` fires them all, in batches of 500 per transaction
(``SKIP LOCKED``), as in production; prints one JSON line. ``TRAMITA_BENCH_TICKERS=N`` runs N
tick processes at once (real processes, each booted before the clock starts), and reports
the figure per process (with the process's own CPU per timer) and for all together.

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


async def _run(url: str) -> dict[str, float]:
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
    t0 = time.perf_counter()
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    each = [json.loads(proc.communicate()[0].strip().splitlines()[-1]) for proc in procs]
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
    }


async def _tick(url: str, later: str) -> None:
    """One tick process: boot, say ready, wait for go, tick everything, print its figures."""
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
    finally:
        await booted.close()
    rate = round(fired / seconds) if seconds else 0
    # The tick process's own CPU per timer (PostgreSQL's is not in it): steadier than the
    # wall-clock rate on a machine doing other work.
    per_timer = round(cpu / fired * 1e6) if fired else 0
    figures = {"seconds": round(seconds, 2), "timers_per_s": rate, "cpu_us_per_timer": per_timer}
    print(json.dumps({"fired": fired, **figures}))


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
