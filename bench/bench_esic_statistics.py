"""Benchmark the e-SIC statistics page on PostgreSQL with 1,000,000 requests; prints JSON.

A throwaway database is created, migrated, bulk-loaded with ``generate_series`` and dropped:
1,000,000 requests over 36 months (2024-01 to 2026-12, three sectors), each with its
``esic.pedido`` instance; 95% answered by an analysis task (10% of those extended and answered
by the extended-deadline task), with decision codes; 10% appealed once, half of those decided.
About 1.1 million completed tasks. It measures what the staff page does per request — the
counts in SQL over the module's tables joined to the engine's completed tasks
(``stats_counts.load_views``: closed months counted once and kept, ``stats_kept``) and every
table and chart (``stats_view.report``) — the first read, then for the
default 12-month window (``YEAR_ROUNDS`` runs) and for one month (``ROUNDS`` runs), p50/p95;
then the whole ``pedidos.csv`` (all 36 months) streamed as the CLI and the page write it, with
the process's peak memory before and after; and prints the plans' index use.

Run: ``python bench/bench_esic_statistics.py`` (PostgreSQL at ``TRAMITA_BENCH_PG``, default
``postgresql://postgres@127.0.0.1:5432/test``; ``TRAMITA_BENCH_REQUESTS`` to change the size;
``TRAMITA_BENCH_KEEP=1`` keeps the database, ``TRAMITA_BENCH_DB=<name>`` measures a kept one
again without loading, ``TRAMITA_BENCH_CSV=0`` skips the CSV file). Not part of the test suite.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import re
import resource
import sys
import time
from datetime import UTC, date, datetime
from pathlib import Path
from types import SimpleNamespace
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psycopg  # after the path set-up above

from contracts.workflow.task_records import TASK_RECORDS_KEY
from core import migrate
from core.clock import FixedClock
from core.db import create_engine
from core.plugins import PluginHost
from modules.esic.stats_counts import load_views
from modules.esic.stats_export import csv_lines
from modules.esic.stats_view import report
from services.workflow.persistence.task_records import SqlTaskRecords

ADMIN = os.environ.get("TRAMITA_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
REQUESTS = int(os.environ.get("TRAMITA_BENCH_REQUESTS", "1000000"))
ROUNDS = int(os.environ.get("TRAMITA_BENCH_ROUNDS", "20"))
YEAR_ROUNDS = int(os.environ.get("TRAMITA_BENCH_YEAR_ROUNDS", "5"))
ZONE = ZoneInfo("America/Sao_Paulo")
NOW = datetime(2026, 12, 3, 12, tzinfo=UTC)
"""The page is read on this day: 2026-01..11 are closed months (kept), December is counted live."""
SPAN_S = 36 * 30 * 86400  # the requests are spread evenly over ~36 months

LOAD = """
INSERT INTO workflow_definitions (id, key, name, created_at)
VALUES ('00000000-0000-7000-8000-000000000001', 'esic.pedido', 'e-SIC', now());
INSERT INTO workflow_versions (id, definition_id, version, status, checksum, schema, created_at)
VALUES ('00000000-0000-7000-8000-000000000002', '00000000-0000-7000-8000-000000000001', 1,
        'published', 'x', '{}', now());
CREATE TEMP TABLE g AS
SELECT g, (ARRAY['saude','educacao','geral'])[g % 3 + 1] AS sector,
       timestamptz '2024-01-01 03:00+00' + (g::bigint * %(step)s) * interval '1 second' AS at
FROM generate_series(1, %(n)s) g;
INSERT INTO esic_requests (id, sector, question, requester_name, requester_email, status,
    instance_id, protocol, created_at, updated_at)
SELECT md5('r' || g)::uuid, sector, 'q', 'n', 'e', 'closed', md5('i' || g)::uuid::text,
       'SIC-' || g, at, at
FROM g;
INSERT INTO workflow_instances (id, tenant, version_id, definition_key, definition_version,
    protocol, status, current_nodes, state, context, subject_type, subject_id, started_at,
    updated_at, row_version)
SELECT md5('i' || g)::uuid, 'default', '00000000-0000-7000-8000-000000000002', 'esic.pedido', 1,
       'SIC-' || g, 'completed', '[]', '{}', '{}', 'esic.request', md5('r' || g)::uuid::text,
       at, at, 1
FROM g;
INSERT INTO workflow_tasks (id, instance_id, token_id, node_id, attempt_group, name, queue,
    status, outcomes, priority, data, outcome, created_at, due_at, completed_at)
SELECT md5('a' || g)::uuid, md5('i' || g)::uuid, 't', 'analysis_' || sector, 1, 'Analisar',
       'esic.setor.' || sector, 'completed', '["answer","extend"]', 0,
       jsonb_build_object('decision',
           (ARRAY['concedido','concedido','concedido','parcial','negado','inexistente'])[g % 6 + 1],
           'denial_reason', (ARRAY['dados_pessoais','generico','sigilo_legal'])[g % 3 + 1]),
       CASE WHEN g % 10 = 1 THEN 'extend' ELSE 'answer' END, at, at + interval '20 days',
       at + ((g::bigint * 7919) % (19 * 86400)) * interval '1 second'
FROM g WHERE g % 20 <> 0;
INSERT INTO workflow_tasks (id, instance_id, token_id, node_id, attempt_group, name, queue,
    status, outcomes, priority, data, outcome, created_at, due_at, completed_at)
SELECT md5('x' || g)::uuid, md5('i' || g)::uuid, 't', 'extended_' || sector, 1, 'Responder',
       'esic.setor.' || sector, 'completed', '[]', 0, '{"decision": "concedido"}', NULL,
       at + interval '19 days', at + interval '30 days', at + interval '25 days'
FROM g WHERE g % 10 = 1;
INSERT INTO esic_appeals (request_id, instance, text, created_at)
SELECT md5('r' || g)::uuid, 1, 't', at + interval '30 days' FROM g WHERE g % 10 = 3;
INSERT INTO workflow_tasks (id, instance_id, token_id, node_id, attempt_group, name, queue,
    status, outcomes, priority, data, outcome, created_at, due_at, completed_at)
SELECT md5('p' || g)::uuid, md5('i' || g)::uuid, 't', 'appeal_1', 1, 'Decidir',
       'esic.recurso1', 'completed', '[]', 0, '{"appeal_decision": "indeferido"}', NULL,
       at + interval '30 days', at + interval '35 days', at + interval '33 days'
FROM g WHERE g % 20 = 3;
ANALYZE;
"""


def _p(samples: list[float], q: int) -> float:
    ordered = sorted(samples)
    return round(ordered[max(0, -(-q * len(ordered) // 100) - 1)], 1)


async def _measure(url: str) -> dict[str, object]:
    engine = create_engine(url)
    host = SimpleNamespace(
        settings=SimpleNamespace(timezone=ZONE.key),
        database=engine,
        extras={TASK_RECORDS_KEY: SqlTaskRecords(engine)},
        clock=FixedClock(NOW),
    )
    windows = {
        "twelve_months": (date(2026, 1, 1), date(2026, 12, 31), YEAR_ROUNDS),
        "one_month": (date(2026, 6, 1), date(2026, 6, 30), ROUNDS),
    }
    out: dict[str, object] = {}
    for name, (first, last, rounds) in windows.items():
        t0 = time.perf_counter()
        views = await load_views(host, first, last)  # type: ignore[arg-type]
        report(views, public=False)
        first_read = (time.perf_counter() - t0) * 1000  # closed months counted and kept
        samples = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            views = await load_views(host, first, last)  # type: ignore[arg-type]
            report(views, public=False)
            samples.append((time.perf_counter() - t0) * 1000)
        out[name] = {
            "requests_in_window": views.total[0].received,
            "rounds": rounds,
            "first_read_ms": round(first_read, 1),
            "p50_ms": _p(samples, 50),
            "p95_ms": _p(samples, 95),
        }
    if os.environ.get("TRAMITA_BENCH_CSV", "1") == "0":
        await engine.dispose()
        return out
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    lines = size = 0
    async for line in csv_lines(host, "pedidos", date(2024, 1, 1), date(2026, 12, 31)):  # type: ignore[arg-type]
        lines += 1
        size += len(line)
    out["csv_all_requests"] = {
        "rows": lines - 1,
        "mb": round(size / 2**20, 1),
        "seconds": round(time.perf_counter() - t0, 1),
        "peak_rss_mb_before": round(before / 1024),
        "peak_rss_mb_after": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }
    await engine.dispose()
    return out


PLANS = {
    "requests": "SELECT id FROM esic_requests WHERE created_at >= '2026-06-01 03:00+00' "
    "AND created_at < '2026-07-01 03:00+00'",
    "tasks": "SELECT k.id FROM workflow_instances i JOIN workflow_tasks k ON k.instance_id = i.id "
    "WHERE i.definition_key = 'esic.pedido' AND i.started_at >= '2026-06-01 03:00+00' "
    "AND i.started_at < '2026-07-02 03:00+00' AND i.subject_id IS NOT NULL "
    "AND k.status = 'completed' AND k.node_id IN ('analysis_saude', 'appeal_1')",
}


def _indexes(conn: psycopg.Connection[tuple[object, ...]]) -> dict[str, list[str]]:
    used = {}
    for name, sql in PLANS.items():
        rows = conn.execute("EXPLAIN " + sql).fetchall()  # type: ignore[arg-type]
        plan = "\n".join(str(r[0]) for r in rows)
        used[name] = sorted(set(re.findall(r"(?:using|Index Scan on) (\w+)", plan)))
    return used


def main() -> None:
    kept = os.environ.get("TRAMITA_BENCH_DB")
    name = kept or f"tramita_bench_esic_{os.getpid()}"
    with psycopg.connect(ADMIN, autocommit=True) as admin:
        if not kept:
            admin.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
        pg_version = admin.execute("SHOW server_version").fetchone()[0]  # type: ignore[index]
    url = f"{ADMIN.rsplit('/', 1)[0]}/{name}".replace("postgresql://", "postgresql+psycopg://", 1)
    load_s = None
    try:
        host = PluginHost()
        host.discover()
        migrate.upgrade(url, host.collect().migrations)
        t0 = time.perf_counter()
        step = SPAN_S // REQUESTS
        load = LOAD.replace("%(n)s", str(REQUESTS)).replace("%(step)s", str(step))
        with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as conn:
            if not kept:
                for statement in load.split(";\n"):
                    if statement.strip():
                        conn.execute(statement)  # type: ignore[arg-type]
                load_s = round(time.perf_counter() - t0, 1)
            tasks = conn.execute("SELECT count(*) FROM workflow_tasks").fetchone()[0]  # type: ignore[index]
            indexes = _indexes(conn)
        figures = asyncio.run(_measure(url))
    finally:
        if kept or os.environ.get("TRAMITA_BENCH_KEEP"):
            print(f"kept database {name}", file=sys.stderr)
        else:
            with psycopg.connect(ADMIN, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')  # type: ignore[arg-type]
    print(
        json.dumps(
            {
                "bench": "esic_statistics",
                "requests": REQUESTS,
                "instances": REQUESTS,
                "completed_tasks": tasks,
                "load_s": load_s,
                **figures,
                "indexes_used": indexes,
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
    main()
