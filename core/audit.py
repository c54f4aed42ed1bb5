"""The audit writer: append-only, hash-chained rows in the caller's transaction.

Two defences stack here. The table refuses UPDATE and DELETE through database triggers (see the
``core`` migrations), so the trail cannot be edited through the application even by mistake.
And every row carries ``prev_hash`` (the hash of the row before it) and ``hash`` (SHA-256 over
its own canonical content plus ``prev_hash``): someone with enough database rights to drop the
trigger, edit a row or slip a forged one in breaks the chain, and :func:`verify_chain` names the
first broken entry. Recomputing the whole chain after an edit is still possible for such an
attacker, which is why ``tramita audit verify --json`` prints the head hash: store it outside
the database (a ticket, a signed e-mail, the Official Gazette) and an edit rewrites history
that someone else holds a copy of.

Concurrent writers. Each append must see the hash of the row committed just before it. On
PostgreSQL the append takes a transaction-scoped advisory lock, then inserts the row with one
statement that reads the current head and computes the hash on the server: Python builds the
canonical JSON around the predecessor's hash (see :data:`CHAINED_INSERT`), PostgreSQL's
``sha256`` hashes it with the head spliced in, so the stored hash is exactly
:func:`entry_hash` and :func:`verify_chain` checks it the same way. The lock is held until
the caller's transaction ends, so chain order is commit order and no two rows can claim the
same predecessor; the insert is a statement after the lock, so it reads the head with a
snapshot taken after the lock was granted. A caller that holds the lock may also send that
insert later in the same transaction (the workflow unit of work sends it with its COMMIT).
The cost is that audited transactions serialise from their first audit row to their commit
(measured in ``docs/deployment.md``).
The alternative, a sealer that chains rows after commit in ``seq`` order, needs UPDATE on the
table (weakening the trigger) and must reason about sequence gaps left by rolled-back
transactions; the lock is simpler and its cost is small next to the engine's own row locks.
SQLite needs nothing extra: every transaction starts with ``BEGIN IMMEDIATE`` (one writer).
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from contracts.kernel import Actor, AuditEntry, AuditRecord, Clock, IdGen
from contracts.workflow.case import READ_ACTIONS
from core.dbtypes import JSONType, UTCDateTime, UUIDStr

GENESIS = "0" * 64
"""The ``prev_hash`` of the first entry."""

AUDIT_LOCK_KEY = 0x7472_616D_6175_6474  # "tramaudt": one advisory lock for the whole chain
_BATCH = 1000

# The chained view of ``core_audit_log`` (``core.tables.audit_log`` plus the two chain columns
# that ``core_0002`` adds); kept here so the chain's schema and its hashing live side by side.
chained_log = sa.Table(
    "core_audit_log",
    sa.MetaData(),
    sa.Column("seq", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True),
    sa.Column("id", UUIDStr, nullable=False),
    sa.Column("at", UTCDateTime, nullable=False),
    sa.Column("action", sa.String(100), nullable=False),
    sa.Column("object_type", sa.String(100), nullable=False),
    sa.Column("object_id", sa.String(100), nullable=False),
    sa.Column("actor_kind", sa.String(20), nullable=False),
    sa.Column("actor_id", sa.String(100), nullable=False),
    sa.Column("before", JSONType, nullable=True),
    sa.Column("after", JSONType, nullable=True),
    sa.Column("reason", sa.Text, nullable=True),
    sa.Column("correlation_id", sa.String(100), nullable=True),
    sa.Column("prev_hash", sa.String(64), nullable=True),
    sa.Column("hash", sa.String(64), nullable=True),
)


class ChainReport(msgspec.Struct, frozen=True, kw_only=True):
    """What ``verify_chain`` found: ``broken_seq`` is ``None`` when the chain is intact."""

    checked: int
    head_seq: int | None
    head_hash: str | None
    broken_seq: int | None = None
    broken_id: str | None = None
    problem: str | None = None  # content_changed | chain_broken | unsealed

    @property
    def ok(self) -> bool:
        return self.broken_seq is None


def _canon(value: Any) -> Any:
    """JSON values as both backends hand them back: JSONB turns ``2e16`` into an integer, so
    integral floats are hashed as integers; tuples become lists."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(value)
    if isinstance(value, dict):
        return {str(k): _canon(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_canon(v) for v in value]
    return value


def _moment(at: datetime) -> str:
    return at.astimezone(UTC).isoformat(timespec="microseconds")


def _canonical(values: dict[str, Any], prev_hash: str) -> bytes:
    body = {
        "id": str(values["id"]),
        "at": _moment(values["at"]),
        "action": values["action"],
        "object_type": values["object_type"],
        "object_id": values["object_id"],
        "actor_kind": values["actor_kind"],
        "actor_id": values["actor_id"],
        "before": _canon(values["before"]),
        "after": _canon(values["after"]),
        "reason": values["reason"],
        "correlation_id": values["correlation_id"],
        "prev_hash": prev_hash,
    }
    return msgspec.json.encode(body, order="sorted")


def entry_hash(values: dict[str, Any], prev_hash: str) -> str:
    """SHA-256 over the canonical JSON of one row's content and its predecessor's hash."""
    return hashlib.sha256(_canonical(values, prev_hash)).hexdigest()


_PREV_MARK = "p" * 64
_PREV_FIELD = b'"prev_hash":"'


def _around_prev(values: dict[str, Any]) -> tuple[bytes, bytes]:
    """The canonical JSON before and after the predecessor's hash. Keys are sorted, so the
    top-level ``prev_hash`` is followed only by ``reason`` (a string, its quotes escaped):
    its marker is the last occurrence, whatever ``before`` or ``after`` contain."""
    before, field, after = _canonical(values, _PREV_MARK).rpartition(
        _PREV_FIELD + _PREV_MARK.encode() + b'"'
    )
    assert field, "the canonical JSON always has a prev_hash"
    return before + _PREV_FIELD, b'"' + after


def _bytea(name: str) -> Any:
    return sa.bindparam(name, type_=sa.LargeBinary)


def _chained_insert() -> Any:
    content = [
        "id", "at", "action", "object_type", "object_id", "actor_kind", "actor_id",
        "before", "after", "reason", "correlation_id",
    ]  # fmt: skip
    head = (
        sa.select(chained_log.c.hash).order_by(chained_log.c.seq.desc()).limit(1).scalar_subquery()
    )
    prev = sa.select(sa.func.coalesce(head, GENESIS).label("prev")).subquery("head")
    spliced = (
        _bytea("canon_before")
        .op("||", return_type=sa.LargeBinary)(sa.func.convert_to(prev.c.prev, "UTF8"))
        .op("||", return_type=sa.LargeBinary)(_bytea("canon_after"))
    )
    row = sa.select(
        *(sa.bindparam(name, type_=chained_log.c[name].type) for name in content),
        prev.c.prev,
        sa.func.encode(sa.func.sha256(spliced), "hex"),
    )
    return chained_log.insert().from_select([*content, "prev_hash", "hash"], row)


CHAINED_INSERT = _chained_insert()
"""PostgreSQL: one audit row, chained to the current head and hashed on the server."""


LOCK_CHAIN = sa.select(sa.func.pg_advisory_xact_lock(AUDIT_LOCK_KEY))
"""PostgreSQL: the chain's advisory lock, held until the transaction ends."""


async def lock_chain(conn: AsyncConnection) -> None:
    """Take the chain's advisory lock until the transaction ends (PostgreSQL)."""
    await conn.execute(LOCK_CHAIN)


async def _head_hash(conn: AsyncConnection) -> str:
    head = (
        await conn.execute(
            sa.select(chained_log.c.hash).order_by(chained_log.c.seq.desc()).limit(1)
        )
    ).scalar()
    return str(head) if head else GENESIS


class SqlAuditWriter:
    def __init__(self, clock: Clock, ids: IdGen) -> None:
        self._clock = clock
        self._ids = ids

    async def append(self, connection: Any, entry: AuditEntry) -> None:
        conn: AsyncConnection = connection
        if conn.dialect.name == "postgresql":
            await lock_chain(conn)
            await conn.execute(CHAINED_INSERT, self.chained_parameters(entry))
            return
        # SQLite: every transaction already holds the database's one write lock.
        values = self._values(entry)
        prev = await _head_hash(conn)
        await conn.execute(
            chained_log.insert().values(**values, prev_hash=prev, hash=entry_hash(values, prev))
        )

    def chained_parameters(self, entry: AuditEntry) -> dict[str, Any]:
        """Parameters of :data:`CHAINED_INSERT` for ``entry``; whoever executes it must hold
        the chain lock (:func:`lock_chain`) in that transaction."""
        values = self._values(entry)
        canon_before, canon_after = _around_prev(values)
        return {**values, "canon_before": canon_before, "canon_after": canon_after}

    def _values(self, entry: AuditEntry) -> dict[str, Any]:
        return {
            "id": str(self._ids.new_id()),
            "at": self._clock.now(),
            "action": entry.action,
            "object_type": entry.object_type,
            "object_id": entry.object_id,
            "actor_kind": entry.actor.kind,
            "actor_id": entry.actor.id,
            "before": entry.before,
            "after": entry.after,
            "reason": entry.reason,
            "correlation_id": entry.correlation_id,
        }


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
    """Walk the whole log in ``seq`` order and report the first entry that breaks the chain.

    ``content_changed``: the row's own hash does not match its content (it was edited).
    ``chain_broken``: the row does not point at the row before it (a row was deleted, or this
    one was inserted by hand). ``unsealed``: a row without a hash (written around the writer).
    """
    prev, checked, head_seq = GENESIS, 0, None
    async for row in _rows(conn):
        values = dict(row._mapping)
        problem = None
        if not row.hash or not row.prev_hash:
            problem = "unsealed"
        elif row.prev_hash != prev:
            problem = "chain_broken"
        elif entry_hash(values, row.prev_hash) != row.hash:
            problem = "content_changed"
        if problem is not None:
            return ChainReport(
                checked=checked,
                head_seq=head_seq,
                head_hash=prev if head_seq is not None else None,
                broken_seq=row.seq,
                broken_id=str(row.id),
                problem=problem,
            )
        prev, head_seq, checked = row.hash, row.seq, checked + 1
    return ChainReport(
        checked=checked, head_seq=head_seq, head_hash=prev if head_seq is not None else None
    )


async def read_trail(
    conn: AsyncConnection,
    object_type: str,
    object_id: str,
    *,
    actions: tuple[str, ...] | None = None,
) -> list[AuditRecord]:
    """Every audit entry of one object (of the given ``actions`` only, if any), oldest first."""
    query = sa.select(chained_log).where(
        chained_log.c.object_type == object_type, chained_log.c.object_id == object_id
    )
    if actions is not None:
        query = query.where(chained_log.c.action.in_(actions))
    rows = await conn.execute(query.order_by(chained_log.c.seq))
    return [
        AuditRecord(
            seq=row.seq,
            at=row.at,
            hash=row.hash or "",
            entry=AuditEntry(
                action=row.action,
                object_type=row.object_type,
                object_id=row.object_id,
                actor=Actor(kind=row.actor_kind, id=row.actor_id),
                before=row.before,
                after=row.after,
                reason=row.reason,
                correlation_id=row.correlation_id,
            ),
        )
        for row in rows
    ]


async def read_entries(conn: AsyncConnection, instance_id: str) -> list[AuditRecord]:
    """Who read an instance's case (``READ_ACTIONS``) and when, oldest first."""
    return await read_trail(conn, "workflow_instance", instance_id, actions=READ_ACTIONS)


def to_json(entry: AuditEntry) -> bytes:
    return msgspec.json.encode(entry)
