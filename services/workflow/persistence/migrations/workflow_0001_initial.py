"""workflow: definitions, versions, instances, step runs, history, tasks, timers, outbox, DLQ

Revision ID: workflow_0001
Revises:
Create Date: 2026-11-29
"""

from alembic import op

from services.workflow.persistence.schema import metadata

revision = "workflow_0001"
down_revision = None
branch_labels = ("workflow",)
depends_on = None

# Until the first release, the initial revision creates every table declared in
# ``persistence/tables*.py``. After the first release it is frozen: later changes are new
# revisions written out explicitly (op.add_column ...), never edits of this one.


def upgrade() -> None:
    metadata.create_all(op.get_bind())


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
