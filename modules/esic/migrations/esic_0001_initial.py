"""esic: information requests, ombudsman cases, appeals, public timeline, notification log

Revision ID: esic_0001
Revises:
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

from core.dbtypes import UTCDateTime, UUIDStr

revision = "esic_0001"
down_revision = None
branch_labels = ("esic",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "esic_requests",
        sa.Column("id", UUIDStr, primary_key=True),
        sa.Column("sector", sa.String(50), nullable=False),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("requester_name", sa.String(200), nullable=False),
        sa.Column("requester_email", sa.String(254), nullable=False),
        sa.Column("status", sa.String(30), nullable=False),
        sa.Column("instance_id", sa.String(100), nullable=True),
        sa.Column("protocol", sa.String(40), nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "ouvidoria_cases",
        sa.Column("id", UUIDStr, primary_key=True),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("anonymous", sa.Boolean, nullable=False),
        sa.Column("contact_name", sa.String(200), nullable=True),
        sa.Column("contact_email", sa.String(254), nullable=True),
        sa.Column("status", sa.String(30), nullable=False),
        sa.Column("instance_id", sa.String(100), nullable=True),
        sa.Column("protocol", sa.String(40), nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "esic_appeals",
        sa.Column("request_id", UUIDStr, sa.ForeignKey("esic_requests.id"), primary_key=True),
        sa.Column("instance", sa.Integer, primary_key=True),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "esic_public_timeline",
        sa.Column("subject_type", sa.String(50), primary_key=True),
        sa.Column("subject_id", sa.String(100), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("label", sa.String(100), nullable=False),
        sa.Column("at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "esic_notifications",
        sa.Column("idempotency_key", sa.String(200), primary_key=True),
        sa.Column("template", sa.String(100), nullable=False),
        sa.Column("subject_type", sa.String(50), nullable=False),
        sa.Column("subject_id", sa.String(100), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("sent_at", UTCDateTime, nullable=True),
    )


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
