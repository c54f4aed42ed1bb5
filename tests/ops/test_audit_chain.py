"""The audit log is hash-chained: an edit, a deletion or a forged row is named by verify."""

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
from core.audit import GENESIS, chained_log, entry_hash, verify_chain


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


async def test_an_untouched_chain_verifies_and_reports_its_head(platform: Platform) -> None:
    before = await existing(platform)
    await append(platform, 5)
    report = await verify(platform)
    async with platform.database.connect() as conn:
        last = (await conn.execute(sa.select(chained_log).order_by(chained_log.c.seq))).all()[-1]
    assert (report.ok, report.checked) == (True, before + 5)
    assert (report.head_seq, report.head_hash) == (last.seq, last.hash)


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


async def test_deleting_an_entry_breaks_the_link_of_the_next_one(platform: Platform) -> None:
    seqs = await append(platform, 5)
    async with triggers_off(platform) as conn:
        await conn.execute(chained_log.delete().where(chained_log.c.seq == seqs[1]))
    report = await verify(platform)
    assert (report.broken_seq, report.problem) == (seqs[2], "chain_broken")


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
    async with platform.database.begin() as conn:  # INSERT is allowed: the chain catches it
        await conn.execute(
            chained_log.insert().values(
                **values, prev_hash=GENESIS, hash=entry_hash(values, GENESIS)
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
    assert report.ok and report.head_hash == last.hash


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
