"""LGPD bookkeeping: which closed instances had their personal values purged, and when.

One row per purged instance makes the purge idempotent and auditable without touching the
instance row's ``row_version`` (a purge is not a step of the workflow).
"""

from __future__ import annotations

import sqlalchemy as sa

from core.dbtypes import UTCDateTime, UUIDStr
from services.workflow.persistence.tables import metadata

purges = sa.Table(
    "workflow_privacy_purges",
    metadata,
    sa.Column("instance_id", UUIDStr, sa.ForeignKey("workflow_instances.id"), primary_key=True),
    sa.Column("purged_at", UTCDateTime, nullable=False),
    sa.Column("keys", sa.Integer, nullable=False),
)
