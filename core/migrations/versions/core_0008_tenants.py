"""core: tenants and the tenants each person works for

Revision ID: core_0008
Revises: core_0007
Create Date: 2026-12-03

Nothing changes for an install that adds no tenant: a person with no membership works for the
deployment's own tenant (``settings.tenant``), as every person did before.
"""

import sqlalchemy as sa
from alembic import op

from core.dbtypes import UTCDateTime, UUIDStr

revision = "core_0008"
down_revision = "core_0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "core_tenants",
        sa.Column("key", sa.String(50), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "core_user_tenants",
        sa.Column("user_id", UUIDStr, sa.ForeignKey("core_users.id"), primary_key=True),
        sa.Column("tenant", sa.String(50), sa.ForeignKey("core_tenants.key"), primary_key=True),
    )


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
