"""core: an owner and a lease on each Idempotency-Key reservation

Revision ID: core_0005
Revises: core_0004
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

from core.dbtypes import UTCDateTime

revision = "core_0005"
down_revision = "core_0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Reservations left ``running`` by an attempt that never finished (before leases existed)
    get an expired lease, so a retry of the same request takes them over."""
    with op.batch_alter_table("core_idempotency_keys") as batch:
        batch.add_column(sa.Column("owner", sa.String(40), nullable=True))
        batch.add_column(sa.Column("lease_until", UTCDateTime, nullable=True))
    keys = sa.table(
        "core_idempotency_keys",
        sa.column("status", sa.String),
        sa.column("lease_until", UTCDateTime),
        sa.column("created_at", UTCDateTime),
    )
    op.execute(
        keys.update().where(keys.c.status == "running").values(lease_until=keys.c.created_at)
    )


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
