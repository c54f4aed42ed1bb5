"""Benchmark the inbox on PostgreSQL with 1,000,000 tasks; prints one JSON line.

A throwaway database is created, migrated, bulk-loaded with ``generate_series`` (10,000
instances, 1,000,000 tasks over 20 queues, 1,000 assignees, a year of due dates) and dropped.
It measures the p50/p95 of a filtered first page (one queue, ready, by due date, 50 rows) and
of a deep page (the same filter resumed by keyset cursor ~60% into the queue), through the
same ``Inbox`` and SQL the service uses.

Run: ``python bench/bench_inbox.py`` (PostgreSQL at ``TRAMITA_BENCH_PG``, default
``postgresql://postgres@127.0.0.1:5432/test``).
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import msgspec
import psycopg  # after the path set-up above

from core import migrate
from core.clock import SystemClock
from core.db import create_engine
from core.plugins import PluginHost
from services.workflow.persistence.inbox_repo import SqlInboxQuery
from services.workflow.runtime.ports.access import Viewer
from services.workflow.runtime.services.inbox import Inbox, InboxQuery, Keyset, encode_cursor

ADMIN = os.environ.get("TRAMITA_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
TASKS = int(os.environ.get("TRAMITA_BENCH_TASKS", "1000000"))
ROUNDS = 200

LOAD = """
INSERT INTO workflow_definitions (id, key, name, created_at)
VALUES ('00000000-0000-7000-8000-000000000001', 'bench.flow', 'Bench', now());
INSERT INTO workflow_versions (id, definition_id, version, status, checksum, schema, created_at)
VALUES ('00000000-0000-7000-8000-000000000002', '00000000-0000-7000-8000-000000000001', 1,
        'published', 'x', '{}', now());
INSERT INTO workflow_instances (id, tenant, version_id, definition_key, definition_version,
    protocol, status, current_nodes, state, context, started_at, updated_at, row_version)
SELECT md5('i' || g)::uuid, 'default', '00000000-0000-7000-8000-000000000002', 'bench.flow', 1,
       'BEN-2026-' || lpad(g::text, 6, '0'), 'waiting', '["review"]', '{}', '{}', now(), now(), 1
FROM generate_series(1, 10000) g;
INSERT INTO workflow_tasks (id, instance_id, token_id, node_id, attempt_group, name, queue,
    assignee, status, form, outcomes, priority, created_at, due_at)
SELECT md5('t' || g)::uuid, md5('i' || (g % 10000 + 1))::uuid, 't', 'review', 1,
       'Review case ' || g, 'bench.queue' || (g % 20),
       CASE WHEN g % 10 < 3 THEN md5('u' || (g % 1000))::uuid::text END,
       CASE WHEN g % 10 < 3 THEN 'claimed' WHEN g % 10 < 7 THEN 'ready' ELSE 'completed' END,
       NULL, '["approve","reject"]', g % 5,
       timestamptz '2026-01-01' + (g % 525600) * interval '1 minute',
       timestamptz '2026-01-01' + ((g::bigint * 7919) % 525600) * interval '1 minute'
FROM generate_series(1, %(tasks)s) g;
ANALYZE;
"""


def _p(samples: list[float], q: float) -> float:
    return round(statistics.quantiles(samples, n=100)[int(q) - 1], 3)


async def _measure(url: str) -> dict[str, float]:
    engine = create_engine(url)
    inbox = Inbox(SqlInboxQuery(engine, SystemClock()), SystemClock())
    first = InboxQuery(queue="bench.queue5", status=("ready",), limit=50)
    async with engine.connect() as conn:
        from sqlalchemy import text

        row = (
            await conn.execute(
                text(
                    "SELECT id, due_at FROM workflow_tasks WHERE queue='bench.queue5' AND "
                    "status='ready' ORDER BY due_at, id OFFSET :o LIMIT 1"
                ),
                {"o": int(TASKS / 20 * 0.6)},
            )
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
        for _ in range(20):
            await inbox.page(query)
        samples = []
        for _ in range(ROUNDS):
            t0 = time.perf_counter()
            page = await inbox.page(query)
            samples.append((time.perf_counter() - t0) * 1000)
            assert len(page.items) == 50
        out[f"{name}_p50_ms"] = _p(samples, 50)
        out[f"{name}_p95_ms"] = _p(samples, 95)
    await engine.dispose()
    return out


def main() -> None:
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
        with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as conn:
            for statement in LOAD.replace("%(tasks)s", str(TASKS)).split(";\n"):
                if statement.strip():
                    conn.execute(statement)  # type: ignore[arg-type]
        load_s = time.perf_counter() - t0
        figures = asyncio.run(_measure(url))
    finally:
        with psycopg.connect(ADMIN, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    print(
        json.dumps(
            {
                "bench": "inbox",
                "tasks": TASKS,
                "rounds": ROUNDS,
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
