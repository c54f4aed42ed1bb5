"""Verifying the audit log's hash chains (see ``core.audit``): every row against the one
before it in its chain, and one digest over the chains' heads to keep outside the database."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from core.audit import GENESIS, chained_log, entry_hash

_BATCH = 1000


class ChainHead(msgspec.Struct, frozen=True, kw_only=True):
    """One chain's last entry and how many entries it has."""

    chain: int
    entries: int
    head_seq: int
    head_hash: str


class ChainReport(msgspec.Struct, frozen=True, kw_only=True):
    """What ``verify_chain`` found: ``broken_seq`` is ``None`` when every chain is intact.
    ``head_hash`` is :func:`heads_digest` over ``chains`` (only when intact), ``head_seq`` the
    last entry verified."""

    checked: int
    head_seq: int | None
    head_hash: str | None
    chains: list[ChainHead] = []
    broken_seq: int | None = None
    broken_id: str | None = None
    problem: str | None = None  # content_changed | chain_broken | unsealed

    @property
    def ok(self) -> bool:
        return self.broken_seq is None


def heads_digest(heads: list[ChainHead]) -> str:
    """SHA-256 over every chain's number and head hash, in chain order: the one value to keep
    outside the database (a rewritten, shortened or removed chain changes it)."""
    pairs = sorted([h.chain, h.head_hash] for h in heads)
    return hashlib.sha256(msgspec.json.encode(pairs)).hexdigest()


async def _rows(conn: AsyncConnection) -> AsyncIterator[Any]:
    """Every row in ``seq`` order, in keyset-paginated batches (the log only grows)."""
    last = -1
    while True:
        batch = list(
            await conn.execute(
                sa.select(chained_log)
                .where(chained_log.c.seq > last)
                .order_by(chained_log.c.seq)
                .limit(_BATCH)
            )
        )
        if not batch:
            return
        for row in batch:
            yield row
        last = batch[-1].seq


async def verify_chain(conn: AsyncConnection) -> ChainReport:
    """Walk the whole log in ``seq`` order, each row against the one before it in its chain,
    and report the first entry that breaks a chain.

    ``content_changed``: the row's own hash does not match its content (it was edited).
    ``chain_broken``: the row does not point at the row before it in its chain (a row was
    deleted, moved, swapped with another, or inserted by hand). ``unsealed``: a row without a
    hash (written around the writer). A chain's tail cut off, or a whole chain removed, shows
    only as a different ``head_hash`` than the one kept outside the database.
    """
    heads: dict[int, ChainHead] = {}
    checked, head_seq = 0, None
    async for row in _rows(conn):
        head = heads.get(row.chain)
        prev = head.head_hash if head else GENESIS
        problem = None
        if not row.hash or not row.prev_hash:
            problem = "unsealed"
        elif row.prev_hash != prev:
            problem = "chain_broken"
        elif entry_hash(dict(row._mapping), row.prev_hash) != row.hash:
            problem = "content_changed"
        if problem is not None:
            return ChainReport(
                checked=checked,
                head_seq=head_seq,
                head_hash=None,
                chains=sorted(heads.values(), key=lambda h: h.chain),
                broken_seq=row.seq,
                broken_id=str(row.id),
                problem=problem,
            )
        entries = head.entries + 1 if head else 1
        heads[row.chain] = ChainHead(
            chain=row.chain, entries=entries, head_seq=row.seq, head_hash=row.hash
        )
        head_seq, checked = row.seq, checked + 1
    found = sorted(heads.values(), key=lambda h: h.chain)
    return ChainReport(
        checked=checked,
        head_seq=head_seq,
        head_hash=heads_digest(found) if found else None,
        chains=found,
    )
