"""Verifying the audit log's hash chains (see ``core.audit``): every row against the one
before it in its chain (a tenant's stripe), and digests over the chains' heads, of every tenant
and of each one, to keep outside the database."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from core.audit import GENESIS, chained_log, entry_hash, legacy_entry_hash

_BATCH = 1000


class ChainHead(msgspec.Struct, frozen=True, kw_only=True):
    """One chain's last entry and how many entries it has; ``legacy``: every entry so far was
    written before ``core_0009`` (hashed without the tenant)."""

    tenant: str
    chain: int
    entries: int
    head_seq: int
    head_hash: str
    legacy: bool = False


class ChainReport(msgspec.Struct, frozen=True, kw_only=True):
    """What ``verify_chain`` found: ``broken_seq`` is ``None`` when every chain is intact.
    ``head_hash`` is :func:`heads_digest` over ``chains`` (only when intact), ``tenant_heads``
    each tenant's :func:`tenant_digest`, ``head_seq`` the last entry verified. ``tenant``: the
    one tenant verified, when asked for one; ``broken_tenant``/``broken_chain``: the chain of
    the broken entry."""

    checked: int
    head_seq: int | None
    head_hash: str | None
    chains: list[ChainHead] = []
    tenant_heads: dict[str, str] = {}
    tenant: str | None = None
    broken_seq: int | None = None
    broken_id: str | None = None
    broken_tenant: str | None = None
    broken_chain: int | None = None
    problem: str | None = None  # content_changed | chain_broken | unsealed

    @property
    def ok(self) -> bool:
        return self.broken_seq is None


def heads_digest(heads: list[ChainHead]) -> str:
    """SHA-256 over every chain's tenant, number and head hash, in that order: the one value to
    keep outside the database (a rewritten, shortened or removed chain changes it)."""
    triples = sorted([h.tenant, h.chain, h.head_hash] for h in heads)
    return hashlib.sha256(msgspec.json.encode(triples)).hexdigest()


def tenant_digest(heads: list[ChainHead], tenant: str) -> str:
    """SHA-256 over one tenant's chains' numbers and head hashes, in chain order: that tenant's
    value to keep (before ``core_0009`` this was the whole log's ``head_hash``)."""
    pairs = sorted([h.chain, h.head_hash] for h in heads if h.tenant == tenant)
    return hashlib.sha256(msgspec.json.encode(pairs)).hexdigest()


async def _rows(conn: AsyncConnection, tenant: str | None) -> AsyncIterator[Any]:
    """Every row (of ``tenant``) in ``seq`` order, in keyset-paginated batches (the log only
    grows)."""
    last = -1
    while True:
        query = sa.select(chained_log).where(chained_log.c.seq > last)
        if tenant is not None:
            query = query.where(chained_log.c.tenant == tenant)
        batch = list(await conn.execute(query.order_by(chained_log.c.seq).limit(_BATCH)))
        if not batch:
            return
        for row in batch:
            yield row
        last = batch[-1].seq


def _sealed(row: Any, head: ChainHead | None, legacy_tenant: str) -> bool | None:
    """Whether ``row`` is hashed without its tenant (``True``) or with it (``False``), or
    ``None`` when neither matches. Rows without the tenant are the deployment's tenant's and
    only come before a chain's first row with it."""
    values = dict(row._mapping)
    legacy_allowed = row.tenant == legacy_tenant and (head is None or head.legacy)
    if legacy_allowed and legacy_entry_hash(values, row.prev_hash) == row.hash:
        return True
    if entry_hash(values, row.prev_hash) == row.hash:
        return False
    return None


async def verify_chain(
    conn: AsyncConnection, *, tenant: str | None = None, legacy_tenant: str = "default"
) -> ChainReport:
    """Walk the log (``tenant``'s rows only, if given) in ``seq`` order, each row against the
    one before it in its chain, and report the first entry that breaks a chain.

    ``content_changed``: the row's own hash does not match its content or its tenant (it was
    edited, or moved to another tenant). ``chain_broken``: the row does not point at the row
    before it in its chain (a row was deleted, moved, swapped with another, or inserted by
    hand). ``unsealed``: a row without a hash (written around the writer). A chain's tail cut
    off, or a whole chain removed, shows only as a different ``head_hash`` than the one kept
    outside the database. ``legacy_tenant`` is the deployment's tenant, whose rows written
    before ``core_0009`` are hashed without it.
    """
    heads: dict[tuple[str, int], ChainHead] = {}
    checked, head_seq = 0, None
    async for row in _rows(conn, tenant):
        head = heads.get((row.tenant, row.chain))
        prev = head.head_hash if head else GENESIS
        problem, legacy = None, None
        if not row.hash or not row.prev_hash:
            problem = "unsealed"
        elif row.prev_hash != prev:
            problem = "chain_broken"
        elif (legacy := _sealed(row, head, legacy_tenant)) is None:
            problem = "content_changed"
        if problem is not None:
            return ChainReport(
                checked=checked,
                head_seq=head_seq,
                head_hash=None,
                chains=sorted(heads.values(), key=lambda h: (h.tenant, h.chain)),
                tenant=tenant,
                broken_seq=row.seq,
                broken_id=str(row.id),
                broken_tenant=row.tenant,
                broken_chain=row.chain,
                problem=problem,
            )
        heads[(row.tenant, row.chain)] = ChainHead(
            tenant=row.tenant,
            chain=row.chain,
            entries=head.entries + 1 if head else 1,
            head_seq=row.seq,
            head_hash=row.hash,
            legacy=bool(legacy),
        )
        head_seq, checked = row.seq, checked + 1
    found = sorted(heads.values(), key=lambda h: (h.tenant, h.chain))
    return ChainReport(
        checked=checked,
        head_seq=head_seq,
        head_hash=heads_digest(found) if found else None,
        chains=found,
        tenant_heads={t: tenant_digest(found, t) for t in sorted({h.tenant for h in found})},
        tenant=tenant,
    )
