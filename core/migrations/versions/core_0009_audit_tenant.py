"""core: the audit log's chains per tenant (the ``tenant`` column, the chain-taking function)

Revision ID: core_0009
Revises: core_0008
Create Date: 2026-12-07

Rows already there become the deployment's own tenant's (``TRAMITA_TENANT`` when this revision
runs): a constant default, so neither backend rewrites a row and the append-only triggers stay.
Their hashes are unchanged (written without a tenant, ``core.audit.legacy_entry_hash``), so
each chain's head hash is the one kept before this revision; ``tramita audit verify --tenant
<deployment tenant> --json`` prints as that tenant's digest the ``head_hash`` printed before.
Stop every writer during the upgrade (a process of the previous version would link its rows to
another tenant's chains).
"""

import sqlalchemy as sa
from alembic import op

from core.audit import TAKE_CHAIN_FUNCTION
from core.settings import load_settings

revision = "core_0009"
down_revision = "core_0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    tenant = load_settings().tenant
    op.add_column(
        "core_audit_log",
        sa.Column("tenant", sa.String(50), nullable=False, server_default=tenant),
    )
    op.drop_index("ix_core_audit_chain", table_name="core_audit_log")
    op.create_index("ix_core_audit_tenant_chain", "core_audit_log", ["tenant", "chain", "seq"])
    if op.get_bind().dialect.name == "postgresql":
        # A writer of the previous version fails instead of chaining across tenants.
        op.execute("DROP FUNCTION IF EXISTS core_audit_take_chain(integer)")
        op.execute(TAKE_CHAIN_FUNCTION)


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
