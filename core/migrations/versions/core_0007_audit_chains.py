"""core: the audit log in several hash chains (the ``chain`` column, the chain-taking function)

Revision ID: core_0007
Revises: core_0006
Create Date: 2026-12-02

Rows already there become chain 0: the chain number is not hashed, so they verify as before and
chain 0's head is the head hash kept before this revision. Stop every writer during the upgrade
(a process of the previous version would link its rows to the last row of the whole log).
"""

import sqlalchemy as sa
from alembic import op

from core.audit import TAKE_CHAIN_FUNCTION

revision = "core_0007"
down_revision = "core_0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A constant default: PostgreSQL and SQLite add it without touching the rows (the
    # append-only triggers stay as they are).
    op.add_column(
        "core_audit_log", sa.Column("chain", sa.Integer, nullable=False, server_default="0")
    )
    op.create_index("ix_core_audit_chain", "core_audit_log", ["chain", "seq"])
    if op.get_bind().dialect.name == "postgresql":
        op.execute(TAKE_CHAIN_FUNCTION)


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
