"""esic: a request may ask for identity protection (``esic_requests.identity_protected``)

Revision ID: esic_0003
Revises: esic_0002
Create Date: 2026-12-03

A requester who ticks "preservar minha identidade" (Lei 13.460/2017, art. 10, § 7, applied to
LAI requests by Decreto 10.153/2019) is shown to staff as a pseudonym. Requests made before
this revision were not protected: the column defaults to false.
"""

import sqlalchemy as sa
from alembic import op

revision = "esic_0003"
down_revision = "esic_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("esic_requests")}
    if "identity_protected" not in columns:  # re-run safely (a test rewinds the branch)
        op.add_column(
            "esic_requests",
            sa.Column("identity_protected", sa.Boolean, nullable=False, server_default=sa.false()),
        )


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
