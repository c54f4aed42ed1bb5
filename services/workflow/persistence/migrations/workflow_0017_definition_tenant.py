"""workflow: definitions of a tenant's own (``workflow_definitions.tenant``, and its drafts')

Revision ID: workflow_0017
Revises: workflow_0016
Create Date: 2026-12-08

A tenant may publish workflow definitions of its own (issue #25 item 1): only its people see
them and only its cases run them. ``tenant`` names the owner; NULL is a definition of the
deployment, shared by every tenant, which is what every definition of an older database was, so
the column is added empty and nothing else changes. The drafts the editor keeps get the same
column (``workflow_definition_drafts.tenant``: whose draft it is; NULL, the deployment's). A new
database already has the columns from workflow_0001, which creates every declared table; then
nothing is done, so the revision re-runs safely.
"""

import sqlalchemy as sa
from alembic import op

revision = "workflow_0017"
down_revision = "workflow_0016"
branch_labels = None
depends_on = None

TABLES = ("workflow_definitions", "workflow_definition_drafts")


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    for table in TABLES:
        if "tenant" not in {c["name"] for c in inspector.get_columns(table)}:
            op.add_column(table, sa.Column("tenant", sa.String(50), nullable=True))


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
