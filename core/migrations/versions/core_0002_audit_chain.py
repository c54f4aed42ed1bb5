"""core: hash-chain the audit log (prev_hash, hash) and seal the rows already there

Revision ID: core_0002
Revises: core_0001
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

from core.audit import GENESIS, chained_log, legacy_entry_hash

revision = "core_0002"
down_revision = "core_0001"
branch_labels = None
depends_on = None

_SQLITE_TRIGGERS = {
    verb: f"CREATE TRIGGER core_audit_no_{verb.lower()} BEFORE {verb} ON core_audit_log "
    "BEGIN SELECT RAISE(ABORT, 'core_audit_log is append-only'); END"
    for verb in ("UPDATE", "DELETE")
}


def upgrade() -> None:
    op.add_column("core_audit_log", sa.Column("prev_hash", sa.String(64), nullable=True))
    op.add_column("core_audit_log", sa.Column("hash", sa.String(64), nullable=True))
    _seal_existing_rows()


def _seal_existing_rows() -> None:
    """Chain the rows written before this revision, once, in ``seq`` order.

    The append-only trigger is lifted for the duration of this migration's transaction only
    (both DDL and the updates commit or roll back together), then restored.
    """
    bind = op.get_bind()
    columns = [c for c in chained_log.c if c.name not in ("chain", "tenant")]  # core_0007, 0009
    rows = list(bind.execute(sa.select(*columns).order_by(chained_log.c.seq)))
    if not rows:
        return
    postgres = bind.dialect.name == "postgresql"
    if postgres:
        op.execute("ALTER TABLE core_audit_log DISABLE TRIGGER core_audit_append_only")
    else:
        op.execute("DROP TRIGGER core_audit_no_update")
    prev = GENESIS
    for row in rows:
        digest = legacy_entry_hash(dict(row._mapping), prev)  # no tenant before core_0009
        bind.execute(
            chained_log.update()
            .where(chained_log.c.seq == row.seq)
            .values(prev_hash=prev, hash=digest)
        )
        prev = digest
    if postgres:
        op.execute("ALTER TABLE core_audit_log ENABLE TRIGGER core_audit_append_only")
    else:
        op.execute(_SQLITE_TRIGGERS["UPDATE"])


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
