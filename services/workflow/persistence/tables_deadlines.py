"""Tables of legal deadlines: stored calendar versions and the deadlines running on instances.

They live on the shared ``metadata`` (picked up by ``schema.py`` and the initial migration).
A calendar version is written once and never updated: a change is the next version, so a
deadline can always name the exact calendar (key, version, checksum) that produced its due date.
A deadline row is its event log (``rule``, ``started_at``, ``events``) plus the cached result
(``due_at``, ``status``); the service rebuilds the deadline by replaying the log on the stored
calendar version, so the cache can be checked rather than trusted.
"""

from __future__ import annotations

import sqlalchemy as sa

from core.dbtypes import JSONType, UTCDateTime, UUIDStr
from services.workflow.persistence.tables import metadata

calendars = sa.Table(
    "workflow_calendars",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("version", sa.Integer, primary_key=True),
    # ``msgspec.to_builtins(CalendarSpec)``: the spec as sealed, checksum included.
    sa.Column("spec", JSONType, nullable=False),
    sa.Column("checksum", sa.String(80), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("created_by", sa.String(100), nullable=False),
)

deadlines = sa.Table(
    "workflow_deadlines",
    metadata,
    sa.Column("instance_id", UUIDStr, sa.ForeignKey("workflow_instances.id"), primary_key=True),
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("rule", JSONType, nullable=False),
    sa.Column("calendar_key", sa.String(64), nullable=False),
    sa.Column("calendar_version", sa.Integer, nullable=False),
    sa.Column("calendar_checksum", sa.String(80), nullable=False),
    sa.Column("started_at", UTCDateTime, nullable=False),
    # NULL while suspended: the final day is unknown until the clock restarts.
    sa.Column("due_at", UTCDateTime, nullable=True),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("events", JSONType, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.ForeignKeyConstraint(
        ["calendar_key", "calendar_version"],
        ["workflow_calendars.key", "workflow_calendars.version"],
        name="fk_workflow_deadlines_calendar",
    ),
    sa.Index("ix_workflow_deadlines_calendar", "calendar_key", "status"),
    sa.Index("ix_workflow_deadlines_due", "status", "due_at"),
)
