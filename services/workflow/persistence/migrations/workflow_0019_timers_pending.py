"""workflow: index only the pending timers, in the order a tick takes them

Revision ID: workflow_0019
Revises: workflow_0018
Create Date: 2026-12-08

``ix_workflow_timers_due`` was ``(status, due_at)`` over every timer, read only by the tick's
claim of due timers (``status = 'pending' ... ORDER BY due_at, id``). It becomes ``(due_at, id)
WHERE status = 'pending'`` (issue #25 item 2): a fired or cancelled timer's new row version
gets no entry (firing a timer changes its status, so that update is not HOT and added one to
every index), the claim reads no timer fired before, and its order comes from the index, with
no sort. Dropped and created again as ``persistence/tables.py`` declares it, so the revision
re-runs safely; a new database already has it so from workflow_0001 (then it is made again).
"""

import sqlalchemy as sa
from alembic import op

from services.workflow.persistence.tables import timers

revision = "workflow_0019"
down_revision = "workflow_0018"
branch_labels = None
depends_on = None

INDEX = "ix_workflow_timers_due"


def upgrade() -> None:
    (index,) = [i for i in timers.indexes if i.name == INDEX]
    op.execute(sa.text(f"DROP INDEX IF EXISTS {INDEX}"))
    index.create(op.get_bind())


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
