"""esic: index requests by receipt (``ix_esic_requests_created``) for the LAI statistics

Revision ID: esic_0002
Revises: esic_0001
Create Date: 2026-12-02

The statistics pages and CSV files read the requests received in a period
(``modules/esic/stats_source.py``); appeals are read through their primary key, which starts
with the request.
"""

from alembic import op

revision = "esic_0002"
down_revision = "esic_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_esic_requests_created", "esic_requests", ["created_at"])


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
