"""core: join the audit-chain and idempotency branches into one head

Revision ID: core_0004
Revises: core_0002, core_0003
Create Date: 2026-11-30
"""

revision = "core_0004"
down_revision = ("core_0002", "core_0003")
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Nothing to do: both parents are applied; the core branch has one head again."""


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
