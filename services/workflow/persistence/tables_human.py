"""Tables of human work: queues and their members, published forms, submission snapshots and
the idempotency records of task actions.

They live on the shared ``metadata`` (picked up by ``schema.py`` and the initial migration).
Forms are stored as the canonical JSON the checksum was computed over, verbatim, so a stored
version can be re-verified and is never rewritten: a change is a new version.
"""

from __future__ import annotations

import sqlalchemy as sa

from core.dbtypes import JSONType, UTCDateTime, UUIDStr
from services.workflow.persistence.tables import metadata

queues = sa.Table(
    "workflow_queues",
    metadata,
    sa.Column("key", sa.String(100), primary_key=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("active", sa.Boolean, nullable=False),
    # The module permission a member must also hold to work on the queue's tasks.
    sa.Column("permission", sa.String(150), nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
)

queue_members = sa.Table(
    "workflow_queue_members",
    metadata,
    sa.Column("queue", sa.String(100), sa.ForeignKey("workflow_queues.key"), primary_key=True),
    sa.Column("user_id", sa.String(100), primary_key=True),
    sa.Column("added_at", UTCDateTime, nullable=False),
    sa.Index("ix_workflow_queue_members_user", "user_id"),
)

forms = sa.Table(
    "workflow_forms",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("key", sa.String(100), nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("schema", sa.Text, nullable=False),
    sa.Column("checksum", sa.String(64), nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("published_at", UTCDateTime, nullable=False),
    sa.Column("published_by", sa.String(100), nullable=False),
    sa.UniqueConstraint("key", "version", name="uq_workflow_forms_version"),
)

form_submissions = sa.Table(
    "workflow_form_submissions",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("task_id", UUIDStr, sa.ForeignKey("workflow_tasks.id"), nullable=False),
    sa.Column("instance_id", UUIDStr, sa.ForeignKey("workflow_instances.id"), nullable=False),
    sa.Column("form_key", sa.String(100), nullable=False),
    sa.Column("form_version", sa.Integer, nullable=False),
    sa.Column("form_checksum", sa.String(64), nullable=False),
    # ``forms.encode_snapshot`` bytes, verbatim: the snapshot carries its own format version.
    sa.Column("snapshot", sa.Text, nullable=False),
    sa.Column("actor_id", sa.String(100), nullable=True),
    sa.Column("submitted_at", UTCDateTime, nullable=False),
    sa.Index("ix_workflow_form_submissions_task", "task_id", "submitted_at"),
)

task_actions = sa.Table(
    "workflow_task_actions",
    metadata,
    sa.Column("actor_id", sa.String(100), primary_key=True),
    sa.Column("idempotency_key", sa.String(200), primary_key=True),
    sa.Column("action", sa.String(40), nullable=False),
    sa.Column("task_id", UUIDStr, nullable=False),
    sa.Column("fingerprint", sa.String(64), nullable=False),
    sa.Column("response", JSONType, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
)
