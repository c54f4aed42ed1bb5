"""Benchmark the inbox on PostgreSQL with 1,000,000 tasks; prints one JSON line.

A throwaway database is created, migrated, bulk-loaded with ``generate_series`` (10,000
instances over ``--tenants`` tenants, 1,000,000 tasks over 20 queues, 1,000 assignees, a year
of due dates; each task carries its instance's tenant) and dropped. It measures the p50/p95 of
a filtered first page (one queue, ready, by due date, 50 rows) and of a deep page (the same
filter resumed by keyset cursor ~60% into the viewer tenant's part of the queue), through the
same ``Inbox`` and SQL the service uses, without and with the visibility rule.

Run: ``python bench/bench_inbox.py [--tasks N] [--tenants N] [--explain]`` (PostgreSQL at
``TRAMITA_BENCH_PG``, default ``postgresql://postgres@127.0.0.1:5432/test``). ``--explain``
also prints, on stderr, ``EXPLAIN (ANALYZE, BUFFERS)`` of the statements each page runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import msgspec
import psycopg  # after the path set-up above
from sqlalchemy import event, text
from sqlalchemy.ext.asyncio import AsyncEngine

from core import migrate
from core.clock import SystemClock
from core.db import create_engine
from core.plugins import PluginHost
from services.workflow.persistence.inbox_repo import SqlInboxQuery
from services.workflow.runtime.ports.access import Viewer
from services.workflow.runtime.services.inbox import Inbox, InboxQuery, Keyset, encode_cursor

ADMIN = os.environ.get("TRAMITA_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
ROUNDS = 200

LOAD = """
INSERT INTO workflow_definitions (id, key, name, created_at)
VALUES ('00000000-0000-7000-8000-000000000001', 'bench.flow', 'Bench', now());
INSERT INTO workflow_versions (id, definition_id, version, status, checksum, schema, created_at)
VALUES ('00000000-0000-7000-8000-000000000002', '00000000-0000-7000-8000-000000000001', 1,
        'published', 'x', '{}', now());
INSERT INTO workflow_instances (id, tenant, version_id, definition_key, definition_version,
    protocol, status, current_nodes, state, context, started_at, updated_at, row_version)
SELECT md5('i' || g)::uuid, CASE WHEN (g / 20) % %(tenants)s = 0 THEN 'default'
           ELSE 'tenant' || ((g / 20) % %(tenants)s) END,
       '00000000-0000-7000-8000-000000000002', 'bench.flow', 1,
       'BEN-2026-' || lpad(g::text, 6, '0'), 'waiting', '["review"]', '{}', '{}', now(), now(), 1
FROM generate_series(1, 10000) g;
INSERT INTO workflow_tasks (id, instance_id, tenant, token_id, node_id, attempt_group, name,
    queue, assignee, status, form, outcomes, priority, created_at, due_at)
SELECT md5('t' || g)::uuid, i.id, i.tenant, 't', 'review', 1,
       'Review case ' || g, 'bench.queue' || (g % 20),
       CASE WHEN g % 10 < 3 THEN md5('u' || (g % 1000))::uuid::text END,
       CASE WHEN g % 10 < 3 THEN 'claimed' WHEN g % 10 < 7 THEN 'ready' ELSE 'completed' END,
       NULL, '["approve","reject"]', g % 5,
       timestamptz '2026-01-01' + (g % 525600) * interval '1 minute',
       timestamptz '2026-01-01' + ((g::bigint * 7919) % 525600) * interval '1 minute'
FROM generate_series(1, %(tasks)s) g
JOIN workflow_instances i ON i.id = md5('i' || (g % 10000 + 1))::uuid;
ANALYZE;
"""


def _p(samples: list[float], q: float) -> float:
    return round(statistics.quantiles(samples, n=100)[int(q) - 1], 3)


async def _explain(engine: AsyncEngine, inbox: Inbox, name: str, query: InboxQuery) -> None:
    """Print the plans of the statements one page of ``query`` runs (on stderr)."""
    ran: list[tuple[str, Any]] = []

    def capture(_conn: Any, _cursor: Any, statement: str, params: Any, *_: Any) -> None:
        ran.append((statement, params))

    event.listen(engine.sync_engine, "before_cursor_execute", capture)
    try:
        await inbox.page(query)
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", capture)
    async with engine.connect() as conn:
        for statement, params in ran:
            plan = await conn.exec_driver_sql(f"EXPLAIN (ANALYZE, BUFFERS) {statement}", params)
            print(f"--- {name}\n{statement}\n", file=sys.stderr)
            print("\n".join(r[0] for r in plan), file=sys.stderr)


async def _measure(url: str, rounds: int, explain: bool) -> dict[str, float]:
    engine = create_engine(url)
    inbox = Inbox(SqlInboxQuery(engine, SystemClock()), SystemClock())
    first = InboxQuery(queue="bench.queue5", status=("ready",), limit=50)
    async with engine.connect() as conn:
        # ~60% into the viewer tenant's part of the queue, so the scoped page has rows after it.
        mine = "SELECT id, due_at FROM workflow_tasks WHERE queue='bench.queue5' AND "
        mine += "status='ready' AND tenant='default' ORDER BY due_at, id"
        total = await conn.scalar(text(f"SELECT count(*) FROM ({mine}) m"))
        row = (
            await conn.execute(text(f"{mine} OFFSET :o LIMIT 1"), {"o": int((total or 0) * 0.6)})
        ).first()
    assert row is not None
    cursor = encode_cursor(Keyset(sort="due_at", value=row.due_at, id=str(row.id)))
    deep = InboxQuery(queue="bench.queue5", status=("ready",), limit=50, cursor=cursor)
    # As the API and the pages ask: through the one visibility rule, which scopes by the
    # viewer's tenant (issue #25 item 5) and by access level (every case here is public).
    viewer = Viewer(user_id="00000000-0000-7000-8000-0000000000aa", tenant="default")
    queries = (
        ("first_page", first),
        ("deep_page", deep),
        ("first_page_scoped", msgspec.structs.replace(first, seen_by=viewer)),
        ("deep_page_scoped", msgspec.structs.replace(deep, seen_by=viewer)),
    )
    out: dict[str, float] = {}
    for name, query in queries:
        if explain:
            await _explain(engine, inbox, name, query)
        for _ in range(20):
            await inbox.page(query)
        samples = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            page = await inbox.page(query)
            samples.append((time.perf_counter() - t0) * 1000)
            assert len(page.items) == 50
        out[f"{name}_p50_ms"] = _p(samples, 50)
        out[f"{name}_p95_ms"] = _p(samples, 95)
    await engine.dispose()
    return out


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tasks", type=int, default=int(os.environ.get("TRAMITA_BENCH_TASKS", "1000000"))
    )
    parser.add_argument("--tenants", type=int, default=5, help="instances spread over these")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--explain", action="store_true", help="print the plans on stderr")
    return parser.parse_args()


def main() -> None:
    args = _arguments()
    name = f"tramita_bench_inbox_{os.getpid()}"
    with psycopg.connect(ADMIN, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        pg_version = admin.execute("SHOW server_version").fetchone()[0]  # type: ignore[index]
    url = f"{ADMIN.rsplit('/', 1)[0]}/{name}".replace("postgresql://", "postgresql+psycopg://", 1)
    try:
        host = PluginHost()
        host.discover()
        migrate.upgrade(url, host.collect().migrations)
        t0 = time.perf_counter()
        load = LOAD.replace("%(tasks)s", str(args.tasks))
        with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as conn:
            for statement in load.replace("%(tenants)s", str(max(1, args.tenants))).split(";\n"):
                if statement.strip():
                    conn.execute(statement)  # type: ignore[arg-type]
        load_s = time.perf_counter() - t0
        figures = asyncio.run(_measure(url, args.rounds, args.explain))
    finally:
        with psycopg.connect(ADMIN, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    print(
        json.dumps(
            {
                "bench": "inbox",
                "tasks": args.tasks,
                "tenants": args.tenants,
                "rounds": args.rounds,
                "load_s": round(load_s, 1),
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
    main()
