"""workflow: organisational units, the queues they oversee and their supervisors

Revision ID: workflow_0006
Revises: workflow_0005
Create Date: 2026-12-02

Creates ``workflow_units``, ``workflow_unit_queues`` and ``workflow_unit_supervisors`` on
databases made before they existed (a new database already has them from workflow_0001, which
creates every declared table; ``checkfirst`` leaves those alone). Priority rules need no column:
a task's ``priority`` already exists and the rule lives in the definition.
"""

from alembic import op

from services.workflow.persistence.tables_units import unit_queues, unit_supervisors, units

revision = "workflow_0006"
down_revision = "workflow_0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    for table in (units, unit_queues, unit_supervisors):
        table.create(bind, checkfirst=True)


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
