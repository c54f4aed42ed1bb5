"""esic: keep the LAI statistics of closed months (``esic_stats_*``)

Revision ID: esic_0004
Revises: esic_0003
Create Date: 2026-12-03

The statistics page counts a closed month once and keeps what it counted — one row per request
with what is counted of it (answered, in time, extended, decision, ground, days to answer:
percentiles are not sums) and the appeals by instance and result — with a fingerprint of the
records they came from; a month whose fingerprint changed is counted again
(``modules/esic/stats_kept.py``, ``docs/esic-statistics.md``). Only figures derived from the
records are stored: no counter is kept by hand.
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

from core.dbtypes import UTCDateTime

revision = "esic_0004"
down_revision = "esic_0003"
branch_labels = None
depends_on = None


def _tables() -> dict[str, tuple[list[sa.Column[Any]], tuple[str, ...] | None]]:
    """Each table's columns and, for the three kept per month, the index on (zone, month)."""

    def key() -> list[sa.Column[Any]]:  # a column belongs to one table: new ones each time
        return [
            sa.Column("zone", sa.String(64), nullable=False),
            sa.Column("month", sa.String(7), nullable=False),
        ]

    return {
        "esic_stats_months": (
            [
                sa.Column("zone", sa.String(64), primary_key=True),
                sa.Column("month", sa.String(7), primary_key=True),
                sa.Column("rules", sa.Integer, nullable=False),
                *(
                    sa.Column(c, sa.BigInteger, nullable=False)
                    for c in ("requests", "appeals", "instances", "versions")
                ),
                sa.Column("computed_at", UTCDateTime, nullable=False),
            ],
            None,
        ),
        "esic_stats_facts": (
            [
                *key(),
                sa.Column("sector", sa.String(50), nullable=False),
                *(sa.Column(c, sa.Integer, nullable=False) for c in ("done", "timely", "extended")),
                sa.Column("decision", sa.String(100), nullable=True),
                sa.Column("denial_reason", sa.String(100), nullable=True),
                sa.Column("days", sa.Double, nullable=True),
            ],
            ("zone", "month"),
        ),
        "esic_stats_appeals": (
            [
                *key(),
                sa.Column("sector", sa.String(50), nullable=False),
                sa.Column("instance", sa.Integer, nullable=False),
                sa.Column("result", sa.String(100), nullable=False),
                sa.Column("n", sa.BigInteger, nullable=False),
            ],
            ("zone", "month"),
        ),
    }


def upgrade() -> None:
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    for name, (columns, index) in _tables().items():
        if name in existing:  # re-run safely (a test rewinds the branch)
            continue
        op.create_table(name, *columns)
        if index is not None:
            op.create_index(f"ix_{name}_month", name, list(index))


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
