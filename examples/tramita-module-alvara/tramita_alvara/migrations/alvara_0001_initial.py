"""alvara: licence requests

Revision ID: alvara_0001
Revises:
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

from core.dbtypes import UTCDateTime, UUIDStr

revision = "alvara_0001"
down_revision = None
branch_labels = ("alvara",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "alvara_licences",
        sa.Column("id", UUIDStr, primary_key=True),
        sa.Column("business_name", sa.String(300), nullable=False),
        sa.Column("activity", sa.String(40), nullable=False),
        sa.Column("area_m2", sa.Integer, nullable=False),
        sa.Column("applicant_id", sa.String(100), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("fee_slip", sa.String(40), nullable=True),
        sa.Column("number", sa.String(40), nullable=True, unique=True),
        sa.Column("issued_by_key", sa.String(200), nullable=True),
        sa.Column("instance_id", sa.String(100), nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
