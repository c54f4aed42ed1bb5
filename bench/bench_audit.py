"""What the audit hash chain costs: audited transactions/s with the chain on and off.

On a fresh PostgreSQL database (created beside the admin URL's, migrated with the kernel's own
migrations, dropped at the end), ``--writers`` processes (each one connection) commit
single-entry transactions as fast as they can:

- ``plain``: one INSERT of the same row into ``bench_audit_plain``, a copy of
  ``core_audit_log``'s shape and indexes without triggers and without a chain (the chain off);
- ``chain1``: ``SqlAuditWriter.append`` with one chain, i.e. one lock for the whole log (the
  design before ``core_0007``);
- ``chainN``: ``SqlAuditWriter.append`` with ``--chains`` chains (the default setting).

``--tenants N`` (default 1: every entry the deployment's own tenant) spreads each writer's entries
over N tenants in turn (``tenant-0`` … ``tenant-{N-1}``, writer ``i``'s entry ``n`` to
``(i + n) % N``), so every tenant's own chains (``(tenant, chain)``, ``--chains`` each; one each
in ``chain1``) are taken and appended to; the plain rows carry the same tenant.

Modes alternate within each round so the machine's drift hits them alike; the log is verified
at the end. Prints one JSON line: the machine (cpus, load, python, postgres), then per writer
count and mode the median tx/s over the rounds, every round, chainN/plain per round and of
the medians, and the verified log's entries and chains per tenant.
Usage: ``python bench/bench_audit.py [--n 2000] [--writers 1,8] [--rounds 3] [--chains 16]
[--tenants 1]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import platform as py_platform
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
import sqlalchemy as sa  # noqa: E402

from contracts.kernel import Actor, AuditEntry  # noqa: E402
from core import migrate  # noqa: E402
from core.audit import SqlAuditWriter, chained_log  # noqa: E402
from core.audit_verify import verify_chain  # noqa: E402
from core.clock import SystemClock  # noqa: E402
from core.db import create_engine  # noqa: E402
from core.ids import UUIDv7Gen  # noqa: E402
from core.plugins import PluginHost  # noqa: E402

ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
PLAIN = sa.Table(
    "bench_audit_plain", sa.MetaData(), *(sa.Column(c.name, c.type) for c in chained_log.c)
)


def _entry(name: str, n: int, tenant: str | None) -> AuditEntry:
    return AuditEntry(
        action="workflow.instance.started",
        object_type="workflow_instance",
        object_id=f"{name}-{n}",
        actor=Actor(id="user-1"),
        after={"status": "running", "state": {"node": "review"}},
        correlation_id=f"c-{n}",
        tenant=tenant,
    )


def _tenant(index: int, n: int, tenants: int) -> str | None:
    """Writer ``index``'s entry ``n``: the deployment's tenant (``None``) when there is one
    tenant, else the tenants in turn, each writer starting at its own."""
    return None if tenants <= 1 else f"tenant-{(index + n) % tenants}"


async def _run(
    url: str, index: int, name: str, job: tuple[str, int, int, int, int], go: Any
) -> Any:
    mode, count, chains, tenants, _ = job
    database = create_engine(url, pool_size=1)
    writer = SqlAuditWriter(SystemClock(), UUIDv7Gen(), chains=1 if mode == "chain1" else chains)
    try:
        async with database.begin() as conn:  # connect and warm up before the clock starts
            await conn.execute(sa.text("SELECT 1"))
        go.wait()  # every writer connected and warmed up: start together
        start = time.perf_counter()
        for n in range(count):
            entry = _entry(name, n, _tenant(index, n, tenants))
            async with database.begin() as conn:
                if mode == "plain":
                    values = writer._values(entry)  # the same row, unchained
                    await conn.execute(PLAIN.insert().values(**values))
                else:
                    await writer.append(conn, entry)
        return start, time.perf_counter()
    finally:
        await database.dispose()


def _writer(url: str, index: int, jobs: Any, results: Any, barrier: Any) -> None:
    while (job := jobs.get()) is not None:
        mode, _, _, _, round_no = job
        name = f"w{index}-{mode}-{round_no}"
        results.put(asyncio.run(_run(url, index, name, job, barrier)))


def _measure(
    url: str, writers: int, modes: list[str], n: int, chains: int, tenants: int, rounds: int
) -> Any:
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(writers)
    results = ctx.Queue()
    queues = [ctx.Queue() for _ in range(writers)]
    procs = [
        ctx.Process(target=_writer, args=(url, i, queues[i], results, barrier))
        for i in range(writers)
    ]
    for p in procs:
        p.start()
    per_mode: dict[str, list[float]] = {m: [] for m in modes}
    try:
        for round_no in range(rounds):
            for mode in modes if round_no % 2 == 0 else list(reversed(modes)):
                for q in queues:
                    q.put((mode, n // writers, chains, tenants, round_no))
                spans = [results.get(timeout=600) for _ in range(writers)]
                elapsed = max(end for _, end in spans) - min(start for start, _ in spans)
                per_mode[mode].append(round((n // writers) * writers / elapsed, 1))
    finally:
        for q in queues:
            q.put(None)
        for p in procs:
            p.join(60)
    return per_mode


def _machine(admin_url: str) -> dict[str, Any]:
    with psycopg.connect(admin_url) as conn:
        row = conn.execute("SHOW server_version").fetchone()
        fsync = conn.execute("SHOW fsync").fetchone()
        sync = conn.execute("SHOW synchronous_commit").fetchone()
    return {
        "cpus": os.cpu_count(),
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "python": py_platform.python_version(),
        "postgres": row[0] if row else None,
        "fsync": fsync[0] if fsync else None,
        "synchronous_commit": sync[0] if sync else None,
        "platform": py_platform.platform(),
    }


async def _verify(url: str) -> dict[str, Any]:
    database = create_engine(url)
    try:
        async with database.connect() as conn:
            report = await verify_chain(conn)
    finally:
        await database.dispose()
    per_tenant: dict[str, int] = {}
    for head in report.chains:
        per_tenant[head.tenant] = per_tenant.get(head.tenant, 0) + 1
    return {
        "ok": report.ok,
        "entries": report.checked,
        "chains_used": len(report.chains),
        "chains_per_tenant": per_tenant,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=2000, help="transactions per measurement")
    parser.add_argument("--writers", default="1,8")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--chains", type=int, default=16)
    parser.add_argument("--tenants", type=int, default=1, help="tenants the entries go to in turn")
    parser.add_argument("--admin-url", default=ADMIN_URL)
    args = parser.parse_args()
    name = f"tramita_bench_audit_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(args.admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = args.admin_url.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://")
    url = f"{url}/{name}"
    try:
        migrate.upgrade(url, PluginHost().collect().migrations)
        with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as conn:
            conn.execute("CREATE TABLE bench_audit_plain (LIKE core_audit_log INCLUDING ALL)")
        modes = ["plain", "chain1", f"chain{args.chains}"]
        figures: dict[str, Any] = {}
        for writers in (int(w) for w in args.writers.split(",")):
            rounds = _measure(url, writers, modes, args.n, args.chains, args.tenants, args.rounds)
            median = {m: statistics.median(v) for m, v in rounds.items()}
            figures[f"writers_{writers}"] = {
                "tx_per_s_median": median,
                "rounds": rounds,
                "chain_vs_plain_per_round": [
                    round(c / p, 3) for c, p in zip(rounds[modes[2]], rounds["plain"], strict=True)
                ],
                "chain_vs_plain": round(median[modes[2]] / median["plain"], 3),
                "one_lock_vs_plain": round(median["chain1"] / median["plain"], 3),
            }
        result = {
            "bench": "audit_chain",
            "machine": _machine(args.admin_url),
            "n": args.n,
            "chains": args.chains,
            "tenants": args.tenants,
            **figures,
            "verify": asyncio.run(_verify(url)),
        }
        print(json.dumps(result))
    finally:
        with psycopg.connect(args.admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
