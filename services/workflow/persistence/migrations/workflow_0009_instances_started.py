"""workflow: index instances by definition and start (``ix_workflow_instances_started``)

Revision ID: workflow_0009
Revises: workflow_0008
Create Date: 2026-12-02

The statistics modules publish read a definition's instances started in a period
(``contracts.workflow.task_records``). A new database already has the index from workflow_0001,
which creates every declared table with its indexes; ``checkfirst`` leaves it alone.
"""

from alembic import op

from services.workflow.persistence.tables import instances

revision = "workflow_0009"
down_revision = "workflow_0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    for index in instances.indexes:
        if index.name == "ix_workflow_instances_started":
            index.create(bind, checkfirst=True)
            return
    raise RuntimeError("ix_workflow_instances_started is not declared")


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
