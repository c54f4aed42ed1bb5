"""workflow: one queued or running operation per submission (``dedup_key``)

Revision ID: workflow_0007
Revises: workflow_0006
Create Date: 2026-12-02

Adds ``workflow_operations.dedup_key`` and the partial unique index that lets a single queued or
running operation carry a given key, on databases made before they existed (a new database
already has both from workflow_0001, which creates every declared table).
"""

import sqlalchemy as sa
from alembic import op

from services.workflow.persistence.tables_operations import operations

revision = "workflow_0007"
down_revision = "workflow_0006"
branch_labels = None
depends_on = None

INDEX = "ux_workflow_operations_active_dedup"


def upgrade() -> None:
    bind = op.get_bind()
    inspector = sa.inspect(bind)
    columns = {c["name"] for c in inspector.get_columns("workflow_operations")}
    if "dedup_key" not in columns:
        op.add_column("workflow_operations", sa.Column("dedup_key", sa.String(64), nullable=True))
    if INDEX not in {i["name"] for i in inspector.get_indexes("workflow_operations")}:
        (index,) = [i for i in operations.indexes if i.name == INDEX]
        index.create(bind)


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
