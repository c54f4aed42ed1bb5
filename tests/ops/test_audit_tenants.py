"""Each tenant's audit entries form chains of their own: a break in one tenant's is named for
that tenant while the other's verify intact, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from contracts.kernel import Actor, AuditEntry
from core.app import Platform
from core.audit import chained_log, entry_hash
from core.audit_verify import ChainReport, verify_chain
from tests.ops.test_audit_chain import existing, triggers_off

A, B = "cidade-a", "cidade-b"


def entry(n: int, tenant: str | None) -> AuditEntry:
    return AuditEntry(
        action="test.did",
        object_type="thing",
        object_id=str(n),
        actor=Actor(id=f"user-{n}"),
        after={"n": n},
        tenant=tenant,
    )


async def append(platform: Platform, tenant: str | None, count: int, start: int = 0) -> None:
    for n in range(start, start + count):
        async with platform.database.begin() as conn:
            await platform.audit.append(conn, entry(n, tenant))


async def two_tenants(platform: Platform) -> None:
    """Entries of A and B interleaved, one transaction each; on PostgreSQL also several open at
    once, so each tenant has several chains."""
    for n in range(4):
        await append(platform, A, 1, n)
        await append(platform, B, 1, n)
    if platform.database.dialect.name != "postgresql":
        return
    conns = [await platform.database.connect() for _ in range(4)]
    try:
        for i, conn in enumerate(conns):
            await conn.begin()
            await platform.audit.append(conn, entry(100 + i, A if i % 2 else B))
        for conn in conns:
            await conn.commit()
    finally:
        for conn in conns:
            await conn.close()


async def rows_of(platform: Platform, tenant: str) -> list[Any]:
    async with platform.database.connect() as conn:
        query = sa.select(chained_log).where(chained_log.c.tenant == tenant)
        return list(await conn.execute(query.order_by(chained_log.c.seq)))


async def chain_of(platform: Platform, tenant: str) -> list[Any]:
    """The longest chain of ``tenant``, oldest first."""
    chains: dict[int, list[Any]] = {}
    for row in await rows_of(platform, tenant):
        chains.setdefault(row.chain, []).append(row)
    return max(chains.values(), key=len)


async def verify(platform: Platform, tenant: str | None = None) -> ChainReport:
    async with platform.database.connect() as conn:
        return await verify_chain(conn, tenant=tenant)


async def test_two_tenants_entries_land_in_chains_of_their_own(platform: Platform) -> None:
    before = await existing(platform)
    await two_tenants(platform)
    report = await verify(platform)
    assert (report.ok, report.checked) == (True, before + 8 + (4 if _pg(platform) else 0))
    assert {A, B} <= set(report.tenant_heads)
    for tenant in (A, B):
        rows = await rows_of(platform, tenant)
        assert {r.object_id for r in rows} >= {"0", "1", "2", "3"}
        mine = [h for h in report.chains if h.tenant == tenant]
        assert sum(h.entries for h in mine) == len(rows)
        if _pg(platform):
            assert len(mine) >= 2
        else:
            assert [h.chain for h in mine] == [0]
        one = await verify(platform, tenant)
        assert (one.ok, one.tenant, one.checked) == (True, tenant, len(rows))
        assert one.tenant_heads == {tenant: report.tenant_heads[tenant]}


async def test_an_entry_without_a_tenant_goes_to_the_deployments(platform: Platform) -> None:
    await append(platform, None, 1, 7)
    (row,) = [r for r in await rows_of(platform, "default") if r.object_id == "7"]
    assert row.hash == entry_hash(dict(row._mapping), row.prev_hash)


async def test_a_tampered_entry_is_named_for_its_tenant_and_the_other_verifies(
    platform: Platform,
) -> None:
    await two_tenants(platform)
    victim = (await chain_of(platform, A))[1]
    async with triggers_off(platform) as conn:
        await conn.execute(
            chained_log.update().where(chained_log.c.seq == victim.seq).values(after={"n": -1})
        )
    report = await verify(platform)
    assert (report.broken_seq, report.broken_tenant, report.problem) == (
        victim.seq,
        A,
        "content_changed",
    )
    assert report.broken_chain == victim.chain
    assert (await verify(platform, B)).ok
    assert (await verify(platform, A)).broken_seq == victim.seq


async def test_a_deleted_entry_is_named_for_its_tenant_and_the_other_verifies(
    platform: Platform,
) -> None:
    await two_tenants(platform)
    chain = await chain_of(platform, A)
    async with triggers_off(platform) as conn:
        await conn.execute(chained_log.delete().where(chained_log.c.seq == chain[1].seq))
    report = await verify(platform, A)
    assert (report.broken_seq, report.broken_tenant, report.problem) == (
        chain[2].seq,
        A,
        "chain_broken",
    )
    assert (await verify(platform, B)).ok
    assert (await verify(platform)).broken_tenant == A


async def test_reordered_entries_are_named_for_their_tenant_and_the_other_verifies(
    platform: Platform,
) -> None:
    await two_tenants(platform)
    chain = await chain_of(platform, B)
    first, second = chain[1].seq, chain[2].seq
    async with triggers_off(platform) as conn:  # renumber: the later entry now reads earlier
        for old, new in ((first, -1), (second, first), (-1, second)):
            await conn.execute(chained_log.update().where(chained_log.c.seq == old).values(seq=new))
    report = await verify(platform)
    assert (report.broken_seq, report.broken_id, report.broken_tenant) == (
        first,
        str(chain[2].id),
        B,
    )
    assert report.problem == "chain_broken"
    assert (await verify(platform, A)).ok


async def test_an_entry_moved_to_another_tenant_breaks(platform: Platform) -> None:
    """Even the only entry of a chain, whose link (the genesis) would hold anywhere: the tenant
    is hashed."""
    await append(platform, "sozinha", 1)
    (row,) = await rows_of(platform, "sozinha")
    async with triggers_off(platform) as conn:
        await conn.execute(
            chained_log.update().where(chained_log.c.seq == row.seq).values(tenant="outra")
        )
    report = await verify(platform)
    assert (report.broken_seq, report.broken_tenant, report.problem) == (
        row.seq,
        "outra",
        "content_changed",
    )


async def test_the_head_digests_cover_every_chain_and_each_tenant(platform: Platform) -> None:
    await two_tenants(platform)
    kept = await verify(platform)
    await append(platform, B, 1, 50)
    now = await verify(platform)
    assert now.ok and now.head_hash != kept.head_hash
    assert now.tenant_heads[A] == kept.tenant_heads[A]
    assert now.tenant_heads[B] != kept.tenant_heads[B]


WRITER = """
import asyncio, sys
from contracts.kernel import Actor, AuditEntry
from core.audit import SqlAuditWriter
from core.clock import SystemClock
from core.db import create_engine
from core.ids import UUIDv7Gen
from sqlalchemy import text

async def main(url, name, tenant, count):
    database = create_engine(url)
    writer = SqlAuditWriter(SystemClock(), UUIDv7Gen(), chains=3)
    async with database.connect() as conn:
        await conn.execute(text("SELECT 1"))
    print("ready", flush=True)
    sys.stdin.readline()
    for n in range(count):
        async with database.begin() as conn:
            for k in range(2):
                entry = AuditEntry(action="test.did", object_type="thing",
                                   object_id=f"{name}-{n}-{k}", actor=Actor(id=name),
                                   after={"n": n}, tenant=tenant)
                await writer.append(conn, entry)
            await asyncio.sleep(0.002)  # hold the chain a moment: the others overlap
    await database.dispose()

asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])))
"""


async def test_processes_writing_for_two_tenants_at_once_leave_every_chain_intact(
    platform: Platform, database_url: str
) -> None:
    before = await existing(platform)
    processes = [
        await asyncio.create_subprocess_exec(
            sys.executable, "-c", WRITER, database_url, f"p{n}", (A, B)[n % 2], "10",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )
        for n in range(6)
    ]  # fmt: skip
    for process in processes:  # all connected: start them together
        assert process.stdout is not None
        assert await asyncio.wait_for(process.stdout.readline(), 60) == b"ready\n"
    for process in processes:
        assert process.stdin is not None
        process.stdin.write(b"go\n")
        await process.stdin.drain()
    assert [await asyncio.wait_for(p.wait(), 90) for p in processes] == [0] * 6
    report = await verify(platform)
    assert (report.ok, report.checked) == (True, before + 120)
    for tenant in (A, B):
        assert len(await rows_of(platform, tenant)) == 60
        assert (await verify(platform, tenant)).ok
    if _pg(platform):
        assert len([h for h in report.chains if h.tenant == A]) >= 2


async def test_audit_verify_tenant_checks_that_tenants_chains_only(
    platform: Platform, database_url: str
) -> None:
    await two_tenants(platform)
    victim = (await chain_of(platform, A))[1]
    async with triggers_off(platform) as conn:
        await conn.execute(
            chained_log.update().where(chained_log.c.seq == victim.seq).values(reason="x")
        )
    tramita = str(Path(sys.executable).parent / "tramita")
    env = {**os.environ, "TRAMITA_DATABASE_URL": database_url}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [tramita, "audit", "verify", *args]
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)

    whole, only_b, text = await asyncio.gather(
        *(asyncio.to_thread(run, *args) for args in (["--json"], ["--json", "--tenant", B], []))
    )
    assert whole.returncode == 1
    body = json.loads(whole.stdout)
    assert (body["broken_seq"], body["broken_tenant"]) == (victim.seq, A)
    assert only_b.returncode == 0
    body = json.loads(only_b.stdout)
    assert (body["ok"], body["tenant"], list(body["tenant_heads"])) == (True, B, [B])
    assert text.returncode == 1 and A in text.stderr


def _pg(platform: Platform) -> bool:
    return platform.database.dialect.name == "postgresql"
