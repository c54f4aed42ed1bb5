"""diario: edition PDFs, cut-off scheduling, frozen editions, retificações and extra editions

Revision ID: diario_0002
Revises: diario_0001
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

from core.dbtypes import UTCDateTime, UUIDStr

revision = "diario_0002"
down_revision = "diario_0001"
branch_labels = None
depends_on = None

_NAMES = {"uq": "uq_%(table_name)s_%(column_0_name)s"}


def upgrade() -> None:
    # An extra edition shares its date with the regular one: the date is unique among
    # regular editions only (partial index below), no longer for the whole table.
    if op.get_bind().dialect.name == "postgresql":
        op.drop_constraint("diario_editions_published_on_key", "diario_editions", type_="unique")
        ctx = op.batch_alter_table("diario_editions")
    else:  # SQLite: the unnamed constraint is dropped by recreating the table
        ctx = op.batch_alter_table("diario_editions", naming_convention=_NAMES)
    with ctx as batch:
        if op.get_bind().dialect.name != "postgresql":
            batch.drop_constraint("uq_diario_editions_published_on", type_="unique")
        batch.add_column(sa.Column("extra", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("status", sa.String(20), nullable=False, server_default="open"))
        batch.add_column(sa.Column("verification_code", sa.String(20), nullable=True))
        batch.add_column(sa.Column("composed_at", UTCDateTime, nullable=True))
        batch.add_column(sa.Column("pdf_sha256", sa.String(64), nullable=True))
        batch.add_column(sa.Column("signer", sa.String(500), nullable=True))
        batch.add_column(sa.Column("signed_at", UTCDateTime, nullable=True))
        batch.create_unique_constraint("uq_diario_editions_code", ["verification_code"])
    op.create_index(
        "uq_diario_editions_regular_day",
        "diario_editions",
        ["published_on"],
        unique=True,
        sqlite_where=sa.text("extra = 0"),
        postgresql_where=sa.text("extra = false"),
    )
    with op.batch_alter_table("diario_acts") as batch:
        batch.add_column(
            sa.Column(
                "issuer", sa.String(200), nullable=False, server_default="Gabinete do Prefeito"
            )
        )
        batch.add_column(sa.Column("approved_at", UTCDateTime, nullable=True))
        batch.add_column(sa.Column("corrects_id", UUIDStr, nullable=True))
    op.create_table(
        "diario_edition_pdfs",
        sa.Column("edition_id", UUIDStr, sa.ForeignKey("diario_editions.id"), primary_key=True),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("content", sa.LargeBinary, nullable=False),
    )


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
