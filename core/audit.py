"""The audit writer: append-only, hash-chained rows in the caller's transaction.

Two defences stack here. The table refuses UPDATE and DELETE through database triggers (see the
``core`` migrations), so the trail cannot be edited through the application even by mistake.
And every row carries ``prev_hash`` (the hash of the row before it in its chain) and ``hash``
(SHA-256 over its own canonical content plus ``prev_hash``): someone with enough database rights
to drop the trigger, edit a row, delete one, swap two or slip a forged one in breaks a chain,
and :func:`verify_chain` names the first broken entry.

Chains per tenant, several per tenant (stripes). Every row carries the ``tenant`` whose case or
action it records (``AuditEntry.tenant``, else the deployment's own tenant, ``TRAMITA_TENANT``),
and each tenant has its own chains: a chain is identified by ``(tenant, chain)``, ``chain`` a
stripe number below ``audit_chains`` (16 by default); each row is linked to the row before it
*in its own chain*. The tenant is hashed, so a row moved to another tenant breaks; the stripe
is not, but moving a row to another stripe breaks the links of both. Recomputing a chain after
an edit, or cutting a chain's tail off, is still possible for an attacker with write rights,
which is why ``tramita audit verify --json`` prints ``head_hash``, a digest over every chain's
head (:func:`core.audit_verify.heads_digest`), and one per tenant: store them outside the
database (a ticket, a signed e-mail, the Official Gazette) and a rewritten or shortened chain
no longer matches history that someone else holds a copy of. Order is proven within a chain;
between chains, entries are concurrent and only ``seq`` and ``at`` (not hashed together) order
them. Rows written before ``core_0009`` were hashed without a tenant (:func:`legacy_entry_hash`):
they are the deployment's tenant's, at the start of its chains.

Concurrent writers. Each append must see the hash of the row committed just before it in its
chain. On PostgreSQL the transaction first takes one of the tenant's chains (:data:`LOCK_CHAIN`:
the function ``core_audit_take_chain``, see ``core_0009``): it tries that tenant's chains'
transaction-scoped advisory locks (keys ``hashtext('tramita.audit:' || tenant)`` and the stripe)
from ``pg_backend_pid() % chains`` on, keeps the first free one, or waits for its own when all
are busy, and remembers it in a transaction-local setting named after the tenant
(:func:`chain_setting`; later appends for that tenant in the same transaction reuse it). Then
one statement per row reads that chain's head and computes the hash on the server: Python
builds the canonical JSON around the predecessor's hash (see :data:`CHAINED_INSERT`),
PostgreSQL's ``sha256`` hashes it with the head spliced in, so the stored hash is exactly
:func:`entry_hash`. The lock is held until the transaction ends, so a chain's order is its
commit order; the insert is a statement after the lock, so it reads the head with a snapshot
taken after the lock was granted. The workflow unit of work sends both with its COMMIT.
Audited transactions of one tenant serialise only when more of them commit at once than there
are chains (measured in ``docs/deployment.md``); two tenants never wait for each other's chains
(unless their keys' hashes collide, which only shares a lock). SQLite needs nothing extra:
``BEGIN IMMEDIATE`` (one writer), one chain (0) per tenant.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any, cast

import msgspec
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from contracts.kernel import Actor, AuditEntry, AuditRecord, Clock, IdGen
from contracts.workflow.case import READ_ACTIONS
from core import pg_batch
from core.dbtypes import JSONType, UTCDateTime, UUIDStr

GENESIS = "0" * 64
"""The ``prev_hash`` of the first entry."""

CHAIN_SETTING = "tramita.audit_chain_"
"""Prefix of the transaction-local setting that holds the chain this transaction appends to for
one tenant; the setting's name ends with the tenant key's MD5 (:func:`chain_setting`)."""

TAKE_CHAIN_FUNCTION = f"""
CREATE OR REPLACE FUNCTION core_audit_take_chain(tenant text, chains integer) RETURNS integer
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    setting text := '{CHAIN_SETTING}' || md5(tenant);
    taken text := current_setting(setting, true);
    lock_key integer := hashtext('tramita.audit:' || tenant);
    own integer := pg_backend_pid() % greatest(chains, 1);
    candidate integer;
BEGIN
    IF taken IS NOT NULL AND taken <> '' THEN
        RETURN taken::integer;  -- this transaction holds one of the tenant's chains already
    END IF;
    FOR i IN 0 .. greatest(chains, 1) - 1 LOOP
        candidate := (own + i) % greatest(chains, 1);
        IF pg_try_advisory_xact_lock(lock_key, candidate) THEN
            PERFORM set_config(setting, candidate::text, true);
            RETURN candidate;
        END IF;
    END LOOP;
    PERFORM pg_advisory_xact_lock(lock_key, own);  -- all busy: wait for our own
    PERFORM set_config(setting, own::text, true);
    RETURN own;
END
$$
"""
"""PostgreSQL: take a free chain of one tenant and its advisory lock for this transaction."""


def chain_setting(tenant: Any) -> Any:
    """The name of the transaction-local setting with ``tenant``'s chain, as SQL."""
    return sa.literal(CHAIN_SETTING).op("||")(sa.func.md5(tenant))


# The chained view of ``core_audit_log`` (``core.tables.audit_log`` plus the chain columns that
# ``core_0002``, ``core_0007`` and ``core_0009`` add); kept here so the chain's schema and its
# hashing live side by side.
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
    sa.Column("chain", sa.Integer, nullable=False, server_default="0"),  # core_0007
    sa.Column("tenant", sa.String(50), nullable=False),  # core_0009
)


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


def _canonical(values: dict[str, Any], prev_hash: str, *, tenant: bool = True) -> bytes:
    body: dict[str, Any] = {
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
    if tenant:
        body["tenant"] = values["tenant"]
    return msgspec.json.encode(body, order="sorted")


def entry_hash(values: dict[str, Any], prev_hash: str) -> str:
    """SHA-256 over the canonical JSON of one row's content, its tenant and its predecessor's
    hash."""
    return hashlib.sha256(_canonical(values, prev_hash)).hexdigest()


def legacy_entry_hash(values: dict[str, Any], prev_hash: str) -> str:
    """The hash of a row written before ``core_0009``: the same without the tenant."""
    return hashlib.sha256(_canonical(values, prev_hash, tenant=False)).hexdigest()


_PREV_MARK = "p" * 64
_PREV_FIELD = b'"prev_hash":"'


def _around_prev(values: dict[str, Any]) -> tuple[bytes, bytes]:
    """The canonical JSON before and after the predecessor's hash. Keys are sorted, so the
    top-level ``prev_hash`` is followed only by ``reason`` and ``tenant`` (strings, their quotes
    escaped):
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
    tenant = sa.bindparam("tenant", type_=chained_log.c.tenant.type)
    chain = sa.cast(sa.func.current_setting(chain_setting(tenant)), sa.Integer)
    head = (
        sa.select(chained_log.c.hash)
        .where(chained_log.c.tenant == tenant, chained_log.c.chain == chain)
        .order_by(chained_log.c.seq.desc())
        .limit(1)
        .scalar_subquery()
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
        chain,
        tenant,
    )
    columns = [*content, "prev_hash", "hash", "chain", "tenant"]
    return chained_log.insert().from_select(columns, row)


CHAINED_INSERT = _chained_insert()
"""PostgreSQL: one audit row, chained to the head of the transaction's chain of its tenant (taken
first with :data:`LOCK_CHAIN`) and hashed on the server."""


LOCK_CHAIN = sa.select(
    sa.func.core_audit_take_chain(
        sa.bindparam("tenant", type_=sa.Text), sa.bindparam("chains", type_=sa.Integer)
    )
)
"""PostgreSQL: take one of a tenant's chains and its advisory lock until the transaction ends
(a transaction that has one keeps it); parameters: :meth:`SqlAuditWriter.lock_parameters`."""


async def _send_together(conn: AsyncConnection, statements: list[tuple[Any, Any]]) -> None:
    """PostgreSQL: the chain's lock and the row in one query string, one round trip
    (:mod:`core.pg_batch`), as the workflow service's held writes send them. Each statement of
    such a query takes its own snapshot (READ COMMITTED), so the INSERT reads the head of the
    chain as the lock left it, exactly as when they went one by one."""
    import psycopg  # SQLite never loads it

    raw = (await conn.get_raw_connection()).driver_connection
    driver = cast("psycopg.AsyncConnection[Any]", raw)
    cursor = psycopg.AsyncClientCursor(driver)
    body = b";\n".join(
        sql
        for statement, parameters in statements
        for sql in pg_batch.render(cursor, statement, parameters, conn.dialect)
    )
    try:
        await driver.execute(body, prepare=False)
    except psycopg.Error as exc:
        raise pg_batch.as_dbapi_error(exc) from exc


async def _head_hash(conn: AsyncConnection, tenant: str) -> str:
    head = (
        await conn.execute(
            sa.select(chained_log.c.hash)
            .where(chained_log.c.tenant == tenant, chained_log.c.chain == 0)
            .order_by(chained_log.c.seq.desc())
            .limit(1)
        )
    ).scalar()
    return str(head) if head else GENESIS


class SqlAuditWriter:
    """Appends entries to their tenant's chains; ``tenant`` is the deployment's own
    (``TRAMITA_TENANT``), for the entries that name none."""

    def __init__(
        self, clock: Clock, ids: IdGen, *, chains: int = 16, tenant: str = "default"
    ) -> None:
        self._clock = clock
        self._ids = ids
        self._chains = max(chains, 1)
        self._tenant = tenant

    def tenant_of(self, entry: AuditEntry) -> str:
        """The tenant whose chains ``entry`` goes to."""
        return entry.tenant or self._tenant

    async def append(self, connection: Any, entry: AuditEntry) -> None:
        conn: AsyncConnection = connection
        if conn.dialect.name == "postgresql":
            await _send_together(
                conn,
                [
                    (LOCK_CHAIN, self.lock_parameters(self.tenant_of(entry))),
                    (CHAINED_INSERT, self.chained_parameters(entry)),
                ],
            )
            return
        # SQLite: every transaction already holds the database's one write lock; one chain per
        # tenant.
        values = self._values(entry)
        prev = await _head_hash(conn, values["tenant"])
        await conn.execute(
            chained_log.insert().values(
                **values, prev_hash=prev, hash=entry_hash(values, prev), chain=0
            )
        )

    def lock_parameters(self, tenant: str) -> dict[str, Any]:
        """Parameters of :data:`LOCK_CHAIN`: the tenant, how many chains to spread over."""
        return {"tenant": tenant, "chains": self._chains}

    def chained_parameters(self, entry: AuditEntry) -> dict[str, Any]:
        """Parameters of :data:`CHAINED_INSERT` for ``entry``; whoever executes it must have
        taken a chain (:data:`LOCK_CHAIN`) in that transaction."""
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
            "tenant": self.tenant_of(entry),
        }


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
                tenant=row.tenant,
            ),
        )
        for row in rows
    ]


async def read_entries(conn: AsyncConnection, instance_id: str) -> list[AuditRecord]:
    """Who read an instance's case (``READ_ACTIONS``) and when, oldest first."""
    return await read_trail(conn, "workflow_instance", instance_id, actions=READ_ACTIONS)


def to_json(entry: AuditEntry) -> bytes:
    return msgspec.json.encode(entry)
