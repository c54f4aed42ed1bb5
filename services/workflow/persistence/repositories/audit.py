"""The audit trail, written in the unit of work's transaction."""

from __future__ import annotations

from contracts.kernel import AuditEntry, AuditWriter
from core.audit import CHAINED_INSERT, LOCK_CHAIN, SqlAuditWriter
from services.workflow.persistence.write_buffer import Held, WriteBuffer


class SqlAuditLog:
    """Implements ``runtime.ports.AuditLog``."""

    def __init__(self, db: WriteBuffer, writer: AuditWriter) -> None:
        self._db = db
        self._writer = writer

    async def append(self, entry: AuditEntry) -> None:
        db = self._db
        if db.hold and isinstance(self._writer, SqlAuditWriter):
            # Its row is computed on the server from the head of the chain this transaction
            # takes (and locks): both travel last with the COMMIT (``write_buffer._send_order``).
            if not db.chain_locked:
                db.held.append(Held(LOCK_CHAIN, self._writer.lock_parameters()))
                db.chain_locked = True
            db.held.append(Held(CHAINED_INSERT, self._writer.chained_parameters(entry)))
            return
        await self._writer.append(db.raw, entry)
