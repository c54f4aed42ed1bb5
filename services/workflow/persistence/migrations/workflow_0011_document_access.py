"""workflow: access levels of documents (``workflow_documents.level``, ``ground``; a type's
default, ``workflow_document_types.access``)

Revision ID: workflow_0011
Revises: workflow_0010
Create Date: 2026-12-03

Adds a document's access level (``public`` for every existing document: nothing to backfill)
and its legal ground, and a document type's default level (``NULL``: public), on databases
made before them; a new database already has them from workflow_0001, which creates every
declared table.
"""

import sqlalchemy as sa
from alembic import op

revision = "workflow_0011"
down_revision = "workflow_0010"
branch_labels = None
depends_on = None

NEW = {
    "workflow_documents": (
        sa.Column("level", sa.String(20), nullable=False, server_default="public"),
        sa.Column("ground", sa.String(100), nullable=True),
    ),
    "workflow_document_types": (sa.Column("access", sa.Text, nullable=True),),
}


def upgrade() -> None:
    for table, new in NEW.items():
        columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns(table)}
        for column in new:
            if column.name not in columns:
                op.add_column(table, column)


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
