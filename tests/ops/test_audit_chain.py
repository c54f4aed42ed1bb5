"""The audit log is hash-chained in several chains: an edit, a deletion, a swap, a move to
another chain or a forged row is named by verify; a cut tail changes the kept head digest."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from contracts.kernel import Actor, AuditEntry
from core.app import Platform
from core.audit import GENESIS, chained_log, entry_hash
from core.audit_verify import heads_digest, verify_chain


def entry(n: int) -> AuditEntry:
    return AuditEntry(
        action="test.did",
        object_type="thing",
        object_id=str(n),
        actor=Actor(id=f"user-{n}"),
        before={"status": "open", "n": n},
        after={"status": "closed", "ratio": 2.0, "tags": ["a", "b"]},
        correlation_id=f"c-{n}",
    )


async def append(platform: Platform, count: int) -> list[int]:
    """Append ``count`` entries, one transaction each; returns their ``seq`` numbers (the boot
    itself audits the definitions it publishes, so the log does not start empty)."""
    for n in range(count):
        async with platform.database.begin() as conn:
            await platform.audit.append(conn, entry(n))
    async with platform.database.connect() as conn:
        seqs = (await conn.execute(sa.select(chained_log.c.seq).order_by(chained_log.c.seq))).all()
    return [s for (s,) in seqs[-count:]]


async def append_striped(platform: Platform, rounds: int, width: int = 3) -> None:
    """``rounds`` times, ``width`` transactions open together, one entry each: on PostgreSQL
    each takes a chain of its own (the others' are busy), so the log has several chains whose
    rows interleave in ``seq`` order. SQLite has one writer and one chain: one after another."""
    n = 0
    for _ in range(rounds):
        if platform.database.dialect.name != "postgresql":
            await append(platform, width)
            continue
        conns = [await platform.database.connect() for _ in range(width)]
        try:
            for conn in conns:
                await conn.begin()
                await platform.audit.append(conn, entry(n := n + 1))
            for conn in conns:
                await conn.commit()
        finally:
            for conn in conns:
                await conn.close()


async def rows_by_chain(platform: Platform) -> dict[int, list[Any]]:
    async with platform.database.connect() as conn:
        rows = (await conn.execute(sa.select(chained_log).order_by(chained_log.c.seq))).all()
    chains: dict[int, list[Any]] = {}
    for row in rows:
        chains.setdefault(row.chain, []).append(row)
    return chains


async def longest_chain(platform: Platform) -> list[Any]:
    return max((await rows_by_chain(platform)).values(), key=len)


async def existing(platform: Platform) -> int:
    async with platform.database.connect() as conn:
        return int(
            (await conn.execute(sa.select(sa.func.count()).select_from(chained_log))).scalar_one()
        )


@asynccontextmanager
async def triggers_off(platform: Platform) -> AsyncIterator[Any]:
    """What an attacker with DDL rights does first; restored afterwards (PostgreSQL is shared)."""
    async with platform.database.begin() as conn:
        if conn.dialect.name == "postgresql":
            await conn.execute(sa.text("ALTER TABLE core_audit_log DISABLE TRIGGER USER"))
        else:
            await conn.execute(sa.text("DROP TRIGGER core_audit_no_update"))
            await conn.execute(sa.text("DROP TRIGGER core_audit_no_delete"))
        try:
            yield conn
        finally:
            if conn.dialect.name == "postgresql":
                await conn.execute(sa.text("ALTER TABLE core_audit_log ENABLE TRIGGER USER"))


async def verify(platform: Platform) -> Any:
    async with platform.database.connect() as conn:
        return await verify_chain(conn)


async def test_an_untouched_log_verifies_and_reports_every_chain_head(platform: Platform) -> None:
    before = await existing(platform)
    await append_striped(platform, rounds=3)
    report = await verify(platform)
    chains = await rows_by_chain(platform)
    assert (report.ok, report.checked) == (True, before + 9)
    assert [(h.chain, h.entries, h.head_seq, h.head_hash) for h in report.chains] == [
        (chain, len(rows), rows[-1].seq, rows[-1].hash) for chain, rows in sorted(chains.items())
    ]
    assert report.head_hash == heads_digest(report.chains)
    assert report.head_seq == max(rows[-1].seq for rows in chains.values())
    if platform.database.dialect.name == "postgresql":
        assert len(chains) >= 3  # writers open together never wait for one another
    else:
        assert list(chains) == [0]


async def test_editing_an_entry_behind_the_triggers_back_is_named_by_verify(
    platform: Platform,
) -> None:
    seqs = await append(platform, 5)
    async with triggers_off(platform) as conn:
        await conn.execute(
            chained_log.update().where(chained_log.c.seq == seqs[2]).values(actor_id="someone")
        )
    report = await verify(platform)
    assert (report.broken_seq, report.problem) == (seqs[2], "content_changed")
    assert report.checked == seqs[2] - 1


async def test_editing_an_entry_of_one_chain_among_several_is_named_by_verify(
    platform: Platform,
) -> None:
    await append_striped(platform, rounds=3)
    chain = await longest_chain(platform)
    async with triggers_off(platform) as conn:
        await conn.execute(
            chained_log.update().where(chained_log.c.seq == chain[1].seq).values(reason="x")
        )
    report = await verify(platform)
    assert (report.broken_seq, report.problem) == (chain[1].seq, "content_changed")


async def test_deleting_an_entry_breaks_the_link_of_the_next_one_in_its_chain(
    platform: Platform,
) -> None:
    await append_striped(platform, rounds=4)
    chain = await longest_chain(platform)
    async with triggers_off(platform) as conn:
        await conn.execute(chained_log.delete().where(chained_log.c.seq == chain[1].seq))
    report = await verify(platform)
    assert (report.broken_seq, report.broken_id) == (chain[2].seq, str(chain[2].id))
    assert report.problem == "chain_broken"


async def test_swapping_two_entries_of_a_chain_is_named_by_verify(platform: Platform) -> None:
    await append_striped(platform, rounds=4)
    chain = await longest_chain(platform)
    first, second = chain[1].seq, chain[2].seq
    async with triggers_off(platform) as conn:  # renumber: the later entry now reads earlier
        for old, new in ((first, -1), (second, first), (-1, second)):
            await conn.execute(chained_log.update().where(chained_log.c.seq == old).values(seq=new))
    report = await verify(platform)
    assert (report.broken_seq, report.broken_id) == (first, str(chain[2].id))
    assert report.problem == "chain_broken"


async def test_moving_an_entry_to_another_chain_is_named_by_verify(platform: Platform) -> None:
    await append_striped(platform, rounds=4)
    chain = await longest_chain(platform)
    async with triggers_off(platform) as conn:
        await conn.execute(
            chained_log.update()
            .where(chained_log.c.seq == chain[1].seq)
            .values(chain=chain[1].chain + 1000)
        )
    report = await verify(platform)
    assert (report.broken_seq, report.problem) == (chain[1].seq, "chain_broken")


async def test_cutting_a_chain_short_changes_the_head_digest_kept_outside(
    platform: Platform,
) -> None:
    """The tail of a chain (or a whole chain) removed leaves links that still hold: only the
    head digest printed before, kept outside the database, tells."""
    await append_striped(platform, rounds=3)
    kept = (await verify(platform)).head_hash
    chain = await longest_chain(platform)
    async with triggers_off(platform) as conn:
        await conn.execute(chained_log.delete().where(chained_log.c.seq == chain[-1].seq))
    report = await verify(platform)
    assert report.ok and report.head_hash != kept


async def test_a_row_forged_by_hand_is_named_by_verify(platform: Platform) -> None:
    seqs = await append(platform, 3)
    values = {
        "id": "00000000-0000-7000-8000-000000000099",
        "at": platform.clock.now(),
        "action": "workflow.instance.cancelled",
        "object_type": "thing",
        "object_id": "9",
        "actor_kind": "user",
        "actor_id": "intruder",
        "before": None,
        "after": None,
        "reason": None,
        "correlation_id": None,
    }
    first = (await longest_chain(platform))[0]
    chain, values["tenant"] = first.chain, first.tenant
    async with platform.database.begin() as conn:  # INSERT is allowed: the chain catches it
        await conn.execute(
            chained_log.insert().values(
                **values, prev_hash=GENESIS, hash=entry_hash(values, GENESIS), chain=chain
            )
        )
    await append(platform, 1)
    report = await verify(platform)
    assert (report.broken_seq, report.problem) == (seqs[-1] + 1, "chain_broken")
    assert report.broken_id == values["id"]


async def test_concurrent_writers_build_one_unbroken_chain(platform: Platform) -> None:
    async def writer(n: int) -> None:
        for i in range(5):
            async with platform.database.begin() as conn:
                await platform.audit.append(conn, entry(n * 100 + i))
                await asyncio.sleep(0)  # hold the transaction open across a switch
                await platform.audit.append(conn, entry(n * 100 + i + 50))

    before = await existing(platform)
    await asyncio.gather(*(writer(n) for n in range(6)))
    report = await verify(platform)
    assert (report.ok, report.checked) == (True, before + 60)


WRITER = """
import asyncio, sys
from contracts.kernel import Actor, AuditEntry
from core.audit import SqlAuditWriter
from core.clock import SystemClock
from core.db import create_engine
from core.ids import UUIDv7Gen

async def main(url, name, count):
    database = create_engine(url)
    writer = SqlAuditWriter(SystemClock(), UUIDv7Gen(), chains=4)
    async with database.connect() as conn:
        await conn.execute(sa_text("SELECT 1"))
    print("ready", flush=True)
    sys.stdin.readline()
    for n in range(count):
        async with database.begin() as conn:
            entry = AuditEntry(action="test.did", object_type="thing", object_id=f"{name}-{n}",
                               actor=Actor(id=name), after={"n": n})
            await writer.append(conn, entry)
            await asyncio.sleep(0.002)  # hold the chain a moment: the others overlap
    await database.dispose()

from sqlalchemy import text as sa_text
asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
"""


async def test_several_processes_appending_at_once_leave_every_chain_intact(
    platform: Platform, database_url: str
) -> None:
    before = await existing(platform)
    processes = [
        await asyncio.create_subprocess_exec(
            sys.executable, "-c", WRITER, database_url, f"p{n}", "15",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )
        for n in range(4)
    ]  # fmt: skip
    for process in processes:  # all connected: start them together
        assert process.stdout is not None
        assert await asyncio.wait_for(process.stdout.readline(), 60) == b"ready\n"
    for process in processes:
        assert process.stdin is not None
        process.stdin.write(b"go\n")
        await process.stdin.drain()
    assert [await asyncio.wait_for(p.wait(), 60) for p in processes] == [0, 0, 0, 0]
    report = await verify(platform)
    assert (report.ok, report.checked) == (True, before + 60)
    if platform.database.dialect.name == "postgresql":
        assert len(report.chains) >= 2


async def test_content_that_mimics_the_chain_field_is_hashed_like_any_other(
    platform: Platform,
) -> None:
    """On PostgreSQL the hash is computed on the server around the predecessor's hash; text
    or keys that look like that field must not move the splice point."""
    mimic = '"prev_hash":"' + "p" * 64 + '"'
    tricky = AuditEntry(
        action="test.did",
        object_type="thing",
        object_id="tricky",
        actor=Actor(id="user-x"),
        before={"prev_hash": "p" * 64, "nested": {"prev_hash": mimic}},
        after={"zzz": mimic, "prev_hash": None},
        reason=mimic,
        correlation_id=mimic,
    )
    async with platform.database.begin() as conn:
        await platform.audit.append(conn, tricky)
        await platform.audit.append(conn, entry(7))
    async with platform.database.connect() as conn:
        rows = (await conn.execute(sa.select(chained_log).order_by(chained_log.c.seq))).all()
    last, prev = rows[-1], rows[-2]
    assert prev.object_id == "tricky" and last.prev_hash == prev.hash
    assert prev.hash == entry_hash(dict(prev._mapping), prev.prev_hash)
    report = await verify(platform)
    assert report.ok and any(h.head_hash == last.hash for h in report.chains)


async def test_audit_verify_command_exits_1_and_names_the_broken_entry(
    platform: Platform, database_url: str
) -> None:
    seqs = await append(platform, 4)
    async with triggers_off(platform) as conn:
        await conn.execute(
            chained_log.update().where(chained_log.c.seq == seqs[1]).values(after={"status": "x"})
        )
    env = {**os.environ, "TRAMITA_DATABASE_URL": database_url}
    done = await asyncio.to_thread(
        subprocess.run,
        [str(Path(sys.executable).parent / "tramita"), "audit", "verify", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    report = json.loads(done.stdout)
    assert done.returncode == 1
    assert (report["ok"], report["broken_seq"], report["problem"]) == (
        False,
        seqs[1],
        "content_changed",
    )
