"""workflow: access levels of cases and grants of secret ones

Revision ID: workflow_0010
Revises: workflow_0009
Create Date: 2026-12-03

Creates ``workflow_access`` (a case's level and legal ground; no row: public) and
``workflow_access_grants`` on databases made before them; a new database already has them from
workflow_0001, which creates every declared table (``checkfirst`` leaves those alone). Existing
cases stay public: nothing to backfill.
"""

from alembic import op

from services.workflow.persistence.tables_access import access, access_grants

revision = "workflow_0010"
down_revision = "workflow_0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    for table in (access, access_grants):
        table.create(bind, checkfirst=True)


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
