"""Tables of organisational units: a unit (Secretaria de Saúde, Ouvidoria-Geral), the queues it
oversees and the people who supervise it.

A queue belongs to at most one unit (its primary key is the queue), so moving it is one update
and a supervisor's view is one join. They live on the shared ``metadata`` (picked up by
``schema.py`` and the initial migration).
"""

from __future__ import annotations

import sqlalchemy as sa

from core.dbtypes import UTCDateTime
from services.workflow.persistence.tables import metadata

units = sa.Table(
    "workflow_units",
    metadata,
    sa.Column("key", sa.String(100), primary_key=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
)

unit_queues = sa.Table(
    "workflow_unit_queues",
    metadata,
    sa.Column("queue", sa.String(100), sa.ForeignKey("workflow_queues.key"), primary_key=True),
    sa.Column("unit", sa.String(100), sa.ForeignKey("workflow_units.key"), nullable=False),
    sa.Column("assigned_at", UTCDateTime, nullable=False),
    sa.Index("ix_workflow_unit_queues_unit", "unit"),
)

unit_supervisors = sa.Table(
    "workflow_unit_supervisors",
    metadata,
    sa.Column("unit", sa.String(100), sa.ForeignKey("workflow_units.key"), primary_key=True),
    sa.Column("user_id", sa.String(100), primary_key=True),
    sa.Column("added_at", UTCDateTime, nullable=False),
    sa.Index("ix_workflow_unit_supervisors_user", "user_id"),
)
