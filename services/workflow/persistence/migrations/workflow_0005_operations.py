"""workflow: long operations (batch jobs) and the items they have handled

Revision ID: workflow_0005
Revises: workflow_0003
Create Date: 2026-12-02

Creates ``workflow_operations`` and ``workflow_operation_items`` on databases made before they
existed (a new database already has them from workflow_0001, which creates every declared
table; ``checkfirst`` leaves those alone).
"""

from alembic import op

from services.workflow.persistence.tables_operations import operation_items, operations

revision = "workflow_0005"
down_revision = "workflow_0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    for table in (operations, operation_items):
        table.create(bind, checkfirst=True)


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
