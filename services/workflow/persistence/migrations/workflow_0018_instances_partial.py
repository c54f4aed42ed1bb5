"""workflow: index instances by subject, business key and parent only where they have one

Revision ID: workflow_0018
Revises: workflow_0017
Create Date: 2026-12-08

``ix_workflow_instances_subject``, ``_business_key`` and ``_parent`` become partial indexes of
the rows where the column is set (``IS NOT NULL``; issue #25 item 2). Every query by them asks
for a value (``=``), which a row without one never matches, so they serve those queries as
before; and an instance without a subject, a business key or a parent (a case no other called,
most of them) no longer adds an entry to each of the three whenever its row is written (its
updates are not HOT: ``updated_at`` is indexed, so every update adds one to every index). Each
is dropped and created again as ``persistence/tables.py`` declares it, so the revision re-runs
safely; a new database already has them so from workflow_0001 (then they are made again).
"""

import sqlalchemy as sa
from alembic import op

from services.workflow.persistence.tables import instances

revision = "workflow_0018"
down_revision = "workflow_0017"
branch_labels = None
depends_on = None

INDEXES = (
    "ix_workflow_instances_subject",
    "ix_workflow_instances_business_key",
    "ix_workflow_instances_parent",
)


def upgrade() -> None:
    bind = op.get_bind()
    declared = {str(index.name): index for index in instances.indexes}
    for name in INDEXES:
        op.execute(sa.text(f"DROP INDEX IF EXISTS {name}"))
        declared[name].create(bind)


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
