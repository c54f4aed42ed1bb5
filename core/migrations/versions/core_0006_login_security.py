"""core: server-side sessions and failed-login counters

Revision ID: core_0006
Revises: core_0005
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

from core.dbtypes import UTCDateTime, UUIDStr

revision = "core_0006"
down_revision = "core_0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "core_sessions",
        sa.Column("id", UUIDStr, primary_key=True),
        sa.Column("user_id", UUIDStr, sa.ForeignKey("core_users.id"), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("expires_at", UTCDateTime, nullable=False),
        sa.Column("revoked_at", UTCDateTime, nullable=True),
    )
    op.create_index("ix_core_sessions_expires", "core_sessions", ["expires_at"])
    op.create_table(
        "core_login_failures",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("window_start", UTCDateTime, nullable=False),
    )
    op.create_index("ix_core_login_failures_window", "core_login_failures", ["window_start"])


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
