"""The kernel's own tables: users with one profile each, profile permissions, the audit log."""

from __future__ import annotations

import sqlalchemy as sa

from core.dbtypes import JSONType, UTCDateTime, UUIDStr

metadata = sa.MetaData()

profiles = sa.Table(
    "core_profiles",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("key", sa.String(100), nullable=False, unique=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
)

profile_permissions = sa.Table(
    "core_profile_permissions",
    metadata,
    sa.Column("profile_id", UUIDStr, sa.ForeignKey("core_profiles.id"), primary_key=True),
    sa.Column("permission", sa.String(150), primary_key=True),
)

users = sa.Table(
    "core_users",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("username", sa.String(150), nullable=False, unique=True),
    sa.Column("display_name", sa.String(200), nullable=False),
    sa.Column("password_hash", sa.String(300), nullable=True),
    sa.Column("profile_id", UUIDStr, sa.ForeignKey("core_profiles.id"), nullable=False),
    sa.Column("active", sa.Boolean, nullable=False, default=True),
    sa.Column("created_at", UTCDateTime, nullable=False),
)

audit_log = sa.Table(
    "core_audit_log",
    metadata,
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
    sa.Column("prev_hash", sa.String(64), nullable=True),
    sa.Column("hash", sa.String(64), nullable=True),
    sa.Index("ix_core_audit_object", "object_type", "object_id", "seq"),
)

sessions = sa.Table(
    "core_sessions",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("user_id", UUIDStr, sa.ForeignKey("core_users.id"), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("expires_at", UTCDateTime, nullable=False),
    sa.Column("revoked_at", UTCDateTime, nullable=True),
    sa.Index("ix_core_sessions_expires", "expires_at"),
)
"""Signed-in sessions of the admin pages: the cookie names one, logout revokes it here."""

login_failures = sa.Table(
    "core_login_failures",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("failures", sa.Integer, nullable=False),
    sa.Column("window_start", UTCDateTime, nullable=False),
    sa.Index("ix_core_login_failures_window", "window_start"),
)
"""Failed logins per account and per client in the current window. ``key`` is a keyed hash
of ``account:<name>`` or ``client:<address>``: neither a user name nor an address is stored."""

tenants = sa.Table(
    "core_tenants",
    metadata,
    sa.Column("key", sa.String(50), primary_key=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
)
"""The municipalities or bodies one deployment serves. A single-tenant install has none: its
one tenant is ``settings.tenant`` (``default``)."""

user_tenants = sa.Table(
    "core_user_tenants",
    metadata,
    sa.Column("user_id", UUIDStr, sa.ForeignKey("core_users.id"), primary_key=True),
    sa.Column("tenant", sa.String(50), sa.ForeignKey("core_tenants.key"), primary_key=True),
)
"""The tenants a person works for. A person with no row here works for the deployment's own
tenant (``settings.tenant``)."""
