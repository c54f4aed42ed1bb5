"""core: stored responses for Idempotency-Key

Revision ID: core_0003
Revises: core_0001
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

from core.dbtypes import UTCDateTime

revision = "core_0003"
down_revision = "core_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "core_idempotency_keys",
        sa.Column("user_id", sa.String(100), primary_key=True),
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("status_code", sa.Integer, nullable=True),
        sa.Column("content_type", sa.String(200), nullable=True),
        sa.Column("body", sa.LargeBinary, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("expires_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_core_idempotency_expires", "core_idempotency_keys", ["expires_at"])


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
