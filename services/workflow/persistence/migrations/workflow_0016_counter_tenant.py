"""workflow: protocol counters per tenant (``workflow_protocol_counters.tenant``)

Revision ID: workflow_0016
Revises: workflow_0015
Create Date: 2026-12-07

A tenant with a protocolling unit of its own (``TRAMITA_WF_TENANT_PROTOCOL_UNITS``, issue #25
item 1) numbers its cases in a series of its own, so the counters are keyed by
``(tenant, prefix, year)``. Every counter of a database made before it was the deployment's one
shared series, which is now the deployment tenant's: existing rows take ``TRAMITA_TENANT`` (as
``core.settings.load_settings`` reads it: the environment of ``tramita db upgrade``, default
``default``), so the next number of every series follows the last one given. On PostgreSQL the
column is added with that default, then the primary key is rebuilt over the three columns;
SQLite cannot change a primary key in place, so there the table is copied into the declared
shape and renamed. A new database already has the column from workflow_0001, which creates
every declared table; then nothing is done, so the revision re-runs safely.
"""

import os

import sqlalchemy as sa
from alembic import op

from services.workflow.persistence.tables import protocol_counters

revision = "workflow_0016"
down_revision = "workflow_0015"
branch_labels = None
depends_on = None

TABLE = "workflow_protocol_counters"
KEY = ("tenant", "prefix", "year")


def deployment_tenant() -> str:
    """The deployment's own tenant, exactly as ``core.settings.load_settings`` reads it."""
    return os.environ.get("TRAMITA_TENANT") or "default"


def upgrade() -> None:
    bind = op.get_bind()
    inspector = sa.inspect(bind)
    if "tenant" in {c["name"] for c in inspector.get_columns(TABLE)}:
        return
    tenant = deployment_tenant()
    if bind.dialect.name == "postgresql":
        op.add_column(
            TABLE,
            sa.Column("tenant", sa.String(50), nullable=False, server_default=tenant),
        )
        op.alter_column(TABLE, "tenant", server_default=None)
        primary = inspector.get_pk_constraint(TABLE)["name"] or f"{TABLE}_pkey"
        op.drop_constraint(primary, TABLE, type_="primary")
        op.create_primary_key(primary, TABLE, list(KEY))
        return
    copy = protocol_counters.to_metadata(sa.MetaData(), name=f"{TABLE}_new")
    copy.create(bind)
    bind.execute(
        sa.text(
            f"INSERT INTO {TABLE}_new (tenant, prefix, year, last)"
            f" SELECT :tenant, prefix, year, last FROM {TABLE}"
        ),
        {"tenant": tenant},
    )
    op.drop_table(TABLE)
    op.rename_table(f"{TABLE}_new", TABLE)


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
