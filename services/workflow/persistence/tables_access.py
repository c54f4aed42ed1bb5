"""Tables of access levels: a case's level with its legal ground, and who was granted a case.

A public case has no row in ``workflow_access`` (so existing databases need no backfill); a
grant is never deleted: revoking it stamps ``revoked_at``, so who could see what and when stays
answerable. They live on the shared ``metadata`` (picked up by ``schema.py`` and the initial
migration).
"""

from __future__ import annotations

import sqlalchemy as sa

from core.dbtypes import UTCDateTime, UUIDStr
from services.workflow.persistence.tables import metadata

access = sa.Table(
    "workflow_access",
    metadata,
    sa.Column("instance_id", UUIDStr, sa.ForeignKey("workflow_instances.id"), primary_key=True),
    sa.Column("level", sa.String(20), nullable=False),
    sa.Column("ground", sa.String(100), nullable=True),
    sa.Column("changed_at", UTCDateTime, nullable=False),
    sa.Column("changed_by", sa.String(100), nullable=True),
)

access_grants = sa.Table(
    "workflow_access_grants",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("instance_id", UUIDStr, sa.ForeignKey("workflow_instances.id"), nullable=False),
    sa.Column("user_id", sa.String(100), nullable=False),
    sa.Column("granted_by", sa.String(100), nullable=True),
    sa.Column("granted_at", UTCDateTime, nullable=False),
    sa.Column("expires_at", UTCDateTime, nullable=True),
    sa.Column("revoked_at", UTCDateTime, nullable=True),
    sa.Column("revoked_by", sa.String(100), nullable=True),
    sa.Index("ix_workflow_access_grants_instance", "instance_id", "user_id"),
)
