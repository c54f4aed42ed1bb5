"""workflow: the parent of a called instance (``workflow_instances.parent_instance_id``)

Revision ID: workflow_0012
Revises: workflow_0011
Create Date: 2026-12-03

Adds the instance whose call activity started this one (``NULL`` for every existing instance:
none was called) on databases made before it; a new database already has it from
workflow_0001, which creates every declared table.
"""

import sqlalchemy as sa
from alembic import op

revision = "workflow_0012"
down_revision = "workflow_0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("workflow_instances")}
    if "parent_instance_id" not in columns:
        op.add_column(
            "workflow_instances",
            sa.Column("parent_instance_id", sa.Uuid(as_uuid=False), nullable=True),
        )


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
