"""workflow: a task's tenant (``workflow_tasks.tenant``) and the tenant's inbox indexes

Revision ID: workflow_0015
Revises: workflow_0014
Create Date: 2026-12-07

The inbox scopes every query by the viewer's tenant (issue #25 item 5). A task now carries its
case's tenant, so the scoped first page and a deep keyset page walk one index range
(``ix_workflow_tasks_tenant_queue``, ``ix_workflow_tasks_tenant_assignee``) instead of looking
up each task's case. On a database made before it the column is added, every existing task
takes its case's tenant in one ``UPDATE``, and then the indexes are built; on PostgreSQL the
column is made ``NOT NULL`` as declared. SQLite cannot add that constraint to an existing
column without copying the table, so there it stays nullable; the engine always writes it.
A new database already has all of it from workflow_0001, which creates every declared table;
each step is skipped when done, so the revision re-runs safely.
"""

import sqlalchemy as sa
from alembic import op

from services.workflow.persistence.tables import tasks

revision = "workflow_0015"
down_revision = "workflow_0014"
branch_labels = None
depends_on = None

INDEXES = ("ix_workflow_tasks_tenant_queue", "ix_workflow_tasks_tenant_assignee")


def upgrade() -> None:
    bind = op.get_bind()
    columns = {c["name"] for c in sa.inspect(bind).get_columns("workflow_tasks")}
    if "tenant" not in columns:
        op.add_column("workflow_tasks", sa.Column("tenant", sa.String(50), nullable=True))
    op.execute(
        "UPDATE workflow_tasks SET tenant = (SELECT i.tenant FROM workflow_instances i"
        " WHERE i.id = workflow_tasks.instance_id) WHERE tenant IS NULL"
    )
    if bind.dialect.name == "postgresql":
        op.alter_column("workflow_tasks", "tenant", nullable=False)
    declared = [index for index in tasks.indexes if index.name in INDEXES]
    if len(declared) != len(INDEXES):
        raise RuntimeError(f"{INDEXES} are not all declared")
    for index in declared:
        index.create(bind, checkfirst=True)


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
