"""workflow: document types, their versioned templates (TipTap AST) and process documents

Revision ID: workflow_0003
Revises: workflow_0002
Create Date: 2026-12-01

Creates ``workflow_document_types``, ``workflow_document_templates`` and ``workflow_documents``
on databases made before they existed (a new database already has them from workflow_0001,
which creates every declared table; ``checkfirst`` leaves those alone).
"""

from alembic import op

from services.workflow.persistence.tables_documents import (
    document_templates,
    document_types,
    documents,
)

revision = "workflow_0003"
down_revision = "workflow_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    for table in (document_types, document_templates, documents):
        table.create(bind, checkfirst=True)


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
