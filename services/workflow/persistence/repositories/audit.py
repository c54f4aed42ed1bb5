"""The audit trail, written in the unit of work's transaction."""

from __future__ import annotations

import msgspec

from contracts.kernel import AuditEntry, AuditWriter
from core.audit import CHAINED_INSERT, LOCK_CHAIN, SqlAuditWriter
from services.workflow.persistence.write_buffer import Held, WriteBuffer

INSTANCE = "workflow_instance"
"""The ``object_type`` of an entry about a case."""


class SqlAuditLog:
    """Implements ``runtime.ports.AuditLog``."""

    def __init__(self, db: WriteBuffer, writer: AuditWriter) -> None:
        self._db = db
        self._writer = writer

    async def append(self, entry: AuditEntry) -> None:
        db = self._db
        entry = self._with_tenant(entry)
        if db.hold and isinstance(self._writer, SqlAuditWriter):
            # Its row is computed on the server from the head of the chain this transaction
            # takes (and locks): both travel last with the COMMIT (``write_buffer._send_order``).
            tenant = self._writer.tenant_of(entry)
            if tenant not in db.chains_locked:
                db.held.append(Held(LOCK_CHAIN, self._writer.lock_parameters(tenant)))
                db.chains_locked.add(tenant)
            db.held.append(Held(CHAINED_INSERT, self._writer.chained_parameters(entry)))
            return
        await self._writer.append(db.raw, entry)

    def _with_tenant(self, entry: AuditEntry) -> AuditEntry:
        """The entry with its case's tenant: the instance it names, else the one tenant whose
        instances this transaction touched; with none or several, the writer's default."""
        if entry.tenant is not None:
            return entry
        tenants = self._db.tenants
        tenant = tenants.get(entry.object_id) if entry.object_type == INSTANCE else None
        if tenant is None and len(set(tenants.values())) == 1:
            tenant = next(iter(tenants.values()))
        return entry if tenant is None else msgspec.structs.replace(entry, tenant=tenant)
