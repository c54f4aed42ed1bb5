"""workflow: drafts remember what their imported file suggested (``import_report``)

Revision ID: workflow_0008
Revises: workflow_0007
Create Date: 2026-12-02

Adds ``workflow_definition_drafts.import_report`` (JSON text, NULL for drafts not imported from
a file) on databases made before it existed; a new database already has it from workflow_0001,
which creates every declared table.
"""

import sqlalchemy as sa
from alembic import op

revision = "workflow_0008"
down_revision = "workflow_0007"
branch_labels = None
depends_on = None

TABLE = "workflow_definition_drafts"


def upgrade() -> None:
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns(TABLE)}
    if "import_report" not in columns:
        op.add_column(TABLE, sa.Column("import_report", sa.Text, nullable=True))


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
