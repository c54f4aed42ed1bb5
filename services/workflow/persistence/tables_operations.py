"""Long operations (batch jobs): a migration of many instances or a bulk task action, run in
the background item by item.

``workflow_operations`` holds one row per operation: what it does (``kind`` and ``params``,
which carry the selected ids in order), who started it and why, the counters shown on its
progress page, its status and the lease of the runner working on it (``runner``,
``lease_until``: a runner that dies leaves the lease to expire, and the next one continues).
``workflow_operation_items`` holds one row per item already handled, keyed by the operation and
the item's id: an item is never recorded (so never counted) twice, and the items still to do
are the ``params`` ids without a row here. A partial unique index lets only one queued or
running operation carry a given ``dedup_key``.
"""

from __future__ import annotations

import sqlalchemy as sa

from core.dbtypes import JSONType, UTCDateTime, UUIDStr
from services.workflow.persistence.tables import metadata

ACTIVE_ROWS = sa.text("status IN ('queued', 'running') AND dedup_key IS NOT NULL")

operations = sa.Table(
    "workflow_operations",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("tenant", sa.String(50), nullable=False),
    # ``migration`` or ``bulk_claim`` / ``bulk_forward`` / ``bulk_assign`` / ``bulk_abandon``.
    sa.Column("kind", sa.String(40), nullable=False),
    sa.Column("started_by", sa.String(100), nullable=False),
    sa.Column("started_by_kind", sa.String(20), nullable=False),
    sa.Column("reason", sa.Text, nullable=True),
    # {"format": 1, "items": [...ids in order], ...the kind's own parameters}
    sa.Column("params", JSONType, nullable=False),
    sa.Column("total", sa.Integer, nullable=False),
    sa.Column("done", sa.Integer, nullable=False),
    sa.Column("refused", sa.Integer, nullable=False),
    # queued, running, finished, failed, cancelled
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("error", sa.String(200), nullable=True),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("started_at", UTCDateTime, nullable=True),
    sa.Column("finished_at", UTCDateTime, nullable=True),
    sa.Column("cancelled_by", sa.String(100), nullable=True),
    sa.Column("cancel_reason", sa.Text, nullable=True),
    sa.Column("runner", sa.String(200), nullable=True),
    sa.Column("lease_until", UTCDateTime, nullable=True),
    # What the operation does, by whom (``runtime.operations.dedup_key``): the same submission
    # made again while this one is queued or running gets this one back (a double click).
    sa.Column("dedup_key", sa.String(64), nullable=True),
    sa.Index("ix_workflow_operations_recent", "tenant", "created_at"),
    sa.Index("ix_workflow_operations_status", "status", "lease_until"),
    sa.Index(
        "ux_workflow_operations_active_dedup",
        "tenant",
        "dedup_key",
        unique=True,
        postgresql_where=ACTIVE_ROWS,
        sqlite_where=ACTIVE_ROWS,
    ),
)

operation_items = sa.Table(
    "workflow_operation_items",
    metadata,
    sa.Column("operation_id", UUIDStr, sa.ForeignKey("workflow_operations.id"), nullable=False),
    sa.Column("item_id", sa.String(100), nullable=False),
    sa.Column("position", sa.Integer, nullable=False),
    # done or refused
    sa.Column("outcome", sa.String(20), nullable=False),
    # a fixed key saying why an item was refused (``claimed_by_other``, ``not_on_source_version``…)
    sa.Column("code", sa.String(100), nullable=True),
    sa.Column("detail", JSONType, nullable=True),
    sa.Column("at", UTCDateTime, nullable=False),
    sa.PrimaryKeyConstraint("operation_id", "item_id", name="pk_workflow_operation_items"),
)
