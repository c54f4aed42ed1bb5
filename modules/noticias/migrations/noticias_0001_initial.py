"""noticias: news items

Revision ID: noticias_0001
Revises:
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

from core.dbtypes import UTCDateTime, UUIDStr

revision = "noticias_0001"
down_revision = None
branch_labels = ("noticias",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "noticias_news",
        sa.Column("id", UUIDStr, primary_key=True),
        sa.Column("title", sa.String(300), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("author_id", sa.String(100), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("publish_at", UTCDateTime, nullable=True),
        sa.Column("published_at", UTCDateTime, nullable=True),
        sa.Column("reject_reason", sa.Text, nullable=True),
        sa.Column("instance_id", sa.String(100), nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
