"""workflow: index instances by the parent that called them (``ix_workflow_instances_parent``)

Revision ID: workflow_0014
Revises: workflow_0013
Create Date: 2026-12-03

A parent's page lists the instances its call activities started (issue #24) with one query by
``parent_instance_id``. A new database already has the index from workflow_0001, which creates
every declared table with its indexes; ``checkfirst`` leaves it alone.
"""

from alembic import op

from services.workflow.persistence.tables import instances

revision = "workflow_0014"
down_revision = "workflow_0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    for index in instances.indexes:
        if index.name == "ix_workflow_instances_parent":
            index.create(bind, checkfirst=True)
            return
    raise RuntimeError("ix_workflow_instances_parent is not declared")


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
