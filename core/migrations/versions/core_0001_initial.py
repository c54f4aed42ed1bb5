"""core: users, profiles, permissions, append-only audit log

Revision ID: core_0001
Revises:
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

from core.dbtypes import JSONType, UTCDateTime, UUIDStr

revision = "core_0001"
down_revision = None
branch_labels = ("core",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "core_profiles",
        sa.Column("id", UUIDStr, primary_key=True),
        sa.Column("key", sa.String(100), nullable=False, unique=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "core_profile_permissions",
        sa.Column("profile_id", UUIDStr, sa.ForeignKey("core_profiles.id"), primary_key=True),
        sa.Column("permission", sa.String(150), primary_key=True),
    )
    op.create_table(
        "core_users",
        sa.Column("id", UUIDStr, primary_key=True),
        sa.Column("username", sa.String(150), nullable=False, unique=True),
        sa.Column("display_name", sa.String(200), nullable=False),
        sa.Column("password_hash", sa.String(300), nullable=True),
        sa.Column("profile_id", UUIDStr, sa.ForeignKey("core_profiles.id"), nullable=False),
        sa.Column("active", sa.Boolean, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "core_audit_log",
        sa.Column(
            "seq",
            sa.BigInteger().with_variant(sa.Integer, "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
        sa.Column("id", UUIDStr, nullable=False, unique=True),
        sa.Column("at", UTCDateTime, nullable=False),
        sa.Column("action", sa.String(100), nullable=False),
        sa.Column("object_type", sa.String(100), nullable=False),
        sa.Column("object_id", sa.String(100), nullable=False),
        sa.Column("actor_kind", sa.String(20), nullable=False),
        sa.Column("actor_id", sa.String(100), nullable=False),
        sa.Column("before", JSONType, nullable=True),
        sa.Column("after", JSONType, nullable=True),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("correlation_id", sa.String(100), nullable=True),
    )
    op.create_index("ix_core_audit_object", "core_audit_log", ["object_type", "object_id", "seq"])
    _make_audit_append_only()


def _make_audit_append_only() -> None:
    """The audit log refuses UPDATE and DELETE at the database, not only in our code."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            """
            CREATE FUNCTION core_audit_refuse_change() RETURNS trigger AS $$
            BEGIN
                RAISE EXCEPTION 'core_audit_log is append-only';
            END;
            $$ LANGUAGE plpgsql;
            """
        )
        op.execute(
            "CREATE TRIGGER core_audit_append_only BEFORE UPDATE OR DELETE ON core_audit_log "
            "FOR EACH ROW EXECUTE FUNCTION core_audit_refuse_change()"
        )
    else:
        for verb in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER core_audit_no_{verb.lower()} BEFORE {verb} ON core_audit_log "
                "BEGIN SELECT RAISE(ABORT, 'core_audit_log is append-only'); END"
            )


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
