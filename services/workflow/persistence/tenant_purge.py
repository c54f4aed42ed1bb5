"""Remove every case of one tenant (``tramita privacy purge-tenant``): a body that leaves a
shared deployment takes nothing with it and leaves nothing of its cases behind.

The cases go in batches, each batch one transaction that deletes the cases' rows from every
table that holds them (tasks and their actions and form submissions, timers, step runs,
history, deadlines, dead letters, access levels and grants, documents, pending outbox rows,
privacy marks) and then the cases; the tenant's background operations, its own workflow
definitions (every version no case runs any more) and its drafts go last. Nothing of
another tenant is touched: every statement is bounded by the batch's case ids or by the
tenant's key.

The audit log is not purged: it is append-only and hash-chained, holds identifiers and states
only (never personal data), and is the record the law asks a public body to keep. The purge
appends one ``tenant.purged`` entry with the counts, so every chain still verifies. Document
contents stay in the content-addressed store, which has no delete yet (they are unreachable
once their documents are gone).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from contracts.kernel import Actor, AuditEntry
from services.workflow.persistence import tables as t
from services.workflow.persistence import tables_access as a
from services.workflow.persistence import tables_deadlines as dl
from services.workflow.persistence import tables_documents as d
from services.workflow.persistence import tables_drafts as dr
from services.workflow.persistence import tables_human as h
from services.workflow.persistence import tables_operations as op
from services.workflow.persistence import tables_privacy as p

BATCH = 200

_BY_INSTANCE: tuple[sa.Table, ...] = (
    h.form_submissions,
    t.tasks,
    t.timers,
    t.step_runs,
    t.history,
    dl.deadlines,
    t.dead_letters,
    a.access_grants,
    a.access,
    d.documents,
    p.purges,
)
"""Tables whose rows belong to a case, by ``instance_id`` (children before the tables they
reference; the cases themselves go last)."""


async def _batch(conn: AsyncConnection, ids: list[str], counts: dict[str, int]) -> None:
    tasks = sa.select(t.tasks.c.id).where(t.tasks.c.instance_id.in_(ids))
    done = await conn.execute(h.task_actions.delete().where(h.task_actions.c.task_id.in_(tasks)))
    counts[h.task_actions.name] = counts.get(h.task_actions.name, 0) + done.rowcount
    for table in _BY_INSTANCE:
        done = await conn.execute(table.delete().where(table.c.instance_id.in_(ids)))
        counts[table.name] = counts.get(table.name, 0) + done.rowcount
    outbox = t.outbox
    done = await conn.execute(
        outbox.delete().where(outbox.c.key.in_(ids), outbox.c.sent_at.is_(None))
    )
    counts[outbox.name] = counts.get(outbox.name, 0) + done.rowcount
    done = await conn.execute(t.instances.delete().where(t.instances.c.id.in_(ids)))
    counts[t.instances.name] = counts.get(t.instances.name, 0) + done.rowcount


async def _definitions(conn: AsyncConnection, tenant: str, counts: dict[str, int]) -> None:
    """The tenant's own definitions and drafts (its cases are gone: a version another case
    still runs, which only an operator could have started, is kept with its definition)."""
    v, defs = t.versions.c, t.definitions.c
    running = sa.exists().where(t.instances.c.version_id == v.id)
    own = sa.select(defs.id).where(defs.tenant == tenant)
    done = await conn.execute(t.versions.delete().where(v.definition_id.in_(own), ~running))
    counts[t.versions.name] = done.rowcount
    left = sa.exists().where(v.definition_id == defs.id)
    done = await conn.execute(t.definitions.delete().where(defs.tenant == tenant, ~left))
    counts[t.definitions.name] = done.rowcount
    done = await conn.execute(dr.drafts.delete().where(dr.drafts.c.tenant == tenant))
    counts[dr.drafts.name] = done.rowcount


async def count_cases(engine: AsyncEngine, tenant: str) -> int:
    async with engine.connect() as conn:
        query = sa.select(sa.func.count()).where(t.instances.c.tenant == tenant)
        return int((await conn.execute(query)).scalar_one())


async def purge_tenant(
    engine: AsyncEngine,
    tenant: str,
    *,
    audit: Any,
    actor: Actor,
    progress: Callable[[int], None] = lambda _done: None,
    batch: int = BATCH,
) -> dict[str, int]:
    """Delete the tenant's cases in batches (``progress`` gets each batch's count of cases)
    and its background operations; audit once; return the rows deleted per table."""
    counts: dict[str, int] = {}
    cases = 0
    while True:
        async with engine.begin() as conn:
            rows = await conn.execute(
                sa.select(t.instances.c.id)
                .where(t.instances.c.tenant == tenant)
                .order_by(t.instances.c.id)
                .limit(batch)
            )
            ids = [str(r.id) for r in rows]
            if not ids:
                break
            await _batch(conn, ids, counts)
        cases += len(ids)
        progress(len(ids))
    async with engine.begin() as conn:
        mine = sa.select(op.operations.c.id).where(op.operations.c.tenant == tenant)
        done = await conn.execute(
            op.operation_items.delete().where(op.operation_items.c.operation_id.in_(mine))
        )
        counts[op.operation_items.name] = done.rowcount
        done = await conn.execute(op.operations.delete().where(op.operations.c.tenant == tenant))
        counts[op.operations.name] = done.rowcount
        await _definitions(conn, tenant, counts)
        kept = {name: n for name, n in sorted(counts.items()) if n}
        await audit.append(
            conn,
            AuditEntry(
                action="tenant.purged",
                object_type="tenant",
                object_id=tenant,
                actor=actor,
                after={"cases": cases, "rows": kept},
            ),
        )
    return {name: n for name, n in sorted(counts.items()) if n}
