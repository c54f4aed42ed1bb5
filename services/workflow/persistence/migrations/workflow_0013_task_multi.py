"""workflow: a multi-instance task's item and place (``workflow_tasks.multi``)

Revision ID: workflow_0013
Revises: workflow_0012
Create Date: 2026-12-03

Adds the item a task of a multi-instance node works on, with its index and the number of items
(``NULL`` for every existing task: the multi-instance tasks opened before it show none), on
databases made before it; a new database already has it from workflow_0001, which creates
every declared table.
"""

import sqlalchemy as sa
from alembic import op

from core.dbtypes import JSONType

revision = "workflow_0013"
down_revision = "workflow_0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("workflow_tasks")}
    if "multi" not in columns:
        op.add_column("workflow_tasks", sa.Column("multi", JSONType, nullable=True))


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
