"""The workflow service's tables (SQLAlchemy Core). Only ``persistence`` imports SQLAlchemy.

State lives only here: ``workflow_instances`` holds the current state with an optimistic
``row_version``; ``workflow_step_runs`` one row per node attempt; ``workflow_history`` every
transition with the event that caused it, so replaying it rebuilds the state.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from core.dbtypes import JSONType, UTCDateTime, UUIDStr

metadata = sa.MetaData()
BigIntPK = sa.BigInteger().with_variant(sa.Integer, "sqlite")

definitions = sa.Table(
    "workflow_definitions",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("key", sa.String(100), nullable=False, unique=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    # The tenant whose definition this is (only its cases run it), or NULL: the deployment's,
    # shared by every tenant (workflow_0017).
    sa.Column("tenant", sa.String(50), nullable=True),
)

versions = sa.Table(
    "workflow_versions",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("definition_id", UUIDStr, sa.ForeignKey("workflow_definitions.id"), nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("checksum", sa.String(64), nullable=False),
    # The canonical JSON bytes the checksum was computed over, verbatim (JSONB would reorder).
    sa.Column("schema", sa.Text, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("published_at", UTCDateTime, nullable=True),
    sa.Column("published_by", sa.String(100), nullable=True),
    sa.UniqueConstraint("definition_id", "version", name="uq_workflow_versions_number"),
    sa.Index("ix_workflow_versions_checksum", "definition_id", "checksum"),
)

protocol_counters = sa.Table(
    "workflow_protocol_counters",
    metadata,
    # Whose series: a tenant with a unit of its own, else the deployment's tenant (workflow_0016).
    sa.Column("tenant", sa.String(50), primary_key=True),
    # The series (``Numbering.series``): a definition's prefix, a NUP unit's code, or ``*``.
    sa.Column("prefix", sa.String(20), primary_key=True),
    sa.Column("year", sa.Integer, primary_key=True),
    sa.Column("last", sa.Integer, nullable=False),
)

instances = sa.Table(
    "workflow_instances",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("tenant", sa.String(50), nullable=False),
    sa.Column("version_id", UUIDStr, sa.ForeignKey("workflow_versions.id"), nullable=False),
    sa.Column("definition_key", sa.String(100), nullable=False),
    sa.Column("definition_version", sa.Integer, nullable=False),
    sa.Column("protocol", sa.String(40), nullable=False, unique=True),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("current_nodes", JSONType, nullable=False),
    sa.Column("state", JSONType, nullable=False),
    sa.Column("context", JSONType, nullable=False),
    sa.Column("subject_type", sa.String(100), nullable=True),
    sa.Column("subject_id", sa.String(100), nullable=True),
    sa.Column("business_key", sa.String(200), nullable=True),
    sa.Column("author_id", sa.String(100), nullable=True),
    sa.Column("due_at", UTCDateTime, nullable=True),
    sa.Column("started_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.Column("ended_at", UTCDateTime, nullable=True),
    sa.Column("row_version", sa.Integer, nullable=False),
    sa.Column("parent_instance_id", UUIDStr, nullable=True),
    sa.Index("ix_workflow_instances_status", "tenant", "definition_key", "status"),
    sa.Index("ix_workflow_instances_updated", "status", "updated_at"),
    sa.Index("ix_workflow_instances_started", "definition_key", "started_at"),
)


def _only(condition: str) -> dict[str, Any]:
    """Index only the rows where ``condition`` holds (both backends' partial index)."""
    return {f"{d}_where": sa.text(condition) for d in ("postgresql", "sqlite")}


# Instances are looked up by these by equality only (a subject, a business key, the parent that
# called them), which no row without one matches, so such rows stay out of the index: an update
# of an instance row is not HOT (``updated_at`` is indexed), it adds an entry to every index the
# row is in, and the tick writes one per fired timer (workflow_0018).
sa.Index(
    "ix_workflow_instances_subject",
    instances.c.subject_type,
    instances.c.subject_id,
    **_only("subject_type IS NOT NULL"),
)
sa.Index(
    "ix_workflow_instances_business_key",
    instances.c.business_key,
    **_only("business_key IS NOT NULL"),
)
sa.Index(
    "ix_workflow_instances_parent",
    instances.c.parent_instance_id,
    **_only("parent_instance_id IS NOT NULL"),
)

step_runs = sa.Table(
    "workflow_step_runs",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("instance_id", UUIDStr, sa.ForeignKey("workflow_instances.id"), nullable=False),
    sa.Column("token_id", sa.String(100), nullable=False),
    sa.Column("node_id", sa.String(64), nullable=False),
    sa.Column("kind", sa.String(20), nullable=False),  # step | compensation
    sa.Column("queue", sa.String(50), nullable=False),
    sa.Column("attempt_group", sa.Integer, nullable=False),
    sa.Column("attempt", sa.Integer, nullable=False),
    sa.Column("idempotency_key", sa.String(200), nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("lease_owner", sa.String(100), nullable=True),
    sa.Column("lease_expires_at", UTCDateTime, nullable=True),
    sa.Column("available_at", UTCDateTime, nullable=False),
    sa.Column("input", JSONType, nullable=True),
    sa.Column("output", JSONType, nullable=True),
    sa.Column("error", JSONType, nullable=True),
    sa.Column("checkpoint", JSONType, nullable=True),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("started_at", UTCDateTime, nullable=True),
    sa.Column("finished_at", UTCDateTime, nullable=True),
    sa.UniqueConstraint(
        "instance_id",
        "node_id",
        "kind",
        "attempt_group",
        "attempt",
        name="uq_workflow_step_attempt",
    ),
    sa.Index("ix_workflow_step_runs_due", "status", "available_at"),
    sa.Index("ix_workflow_step_runs_lease", "status", "lease_expires_at"),
    sa.Index("ix_workflow_step_runs_instance", "instance_id"),
)

history = sa.Table(
    "workflow_history",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("instance_id", UUIDStr, sa.ForeignKey("workflow_instances.id"), nullable=False),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("at", UTCDateTime, nullable=False),
    sa.Column("event", sa.String(50), nullable=False),
    sa.Column("from_node", sa.String(64), nullable=True),
    sa.Column("to_node", sa.String(64), nullable=True),
    sa.Column("actor_kind", sa.String(20), nullable=True),
    sa.Column("actor_id", sa.String(100), nullable=True),
    sa.Column("data", JSONType, nullable=False),
    sa.UniqueConstraint("instance_id", "seq", name="uq_workflow_history_seq"),
)

tasks = sa.Table(
    "workflow_tasks",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("instance_id", UUIDStr, sa.ForeignKey("workflow_instances.id"), nullable=False),
    # Its case's tenant, written with the task (a case never changes tenant), so the inbox
    # scopes by tenant on the task's own index instead of looking up each task's case.
    sa.Column("tenant", sa.String(50), nullable=False),
    sa.Column("token_id", sa.String(100), nullable=False),
    sa.Column("node_id", sa.String(64), nullable=False),
    sa.Column("attempt_group", sa.Integer, nullable=False),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("queue", sa.String(100), nullable=True),
    sa.Column("assignee", sa.String(100), nullable=True),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("form", sa.String(120), nullable=True),
    sa.Column("outcomes", JSONType, nullable=False),
    sa.Column("priority", sa.Integer, nullable=False),
    sa.Column("data", JSONType, nullable=True),
    sa.Column("outcome", sa.String(64), nullable=True),
    sa.Column("completed_by", sa.String(100), nullable=True),
    sa.Column("due_at", UTCDateTime, nullable=True),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("claimed_at", UTCDateTime, nullable=True),
    sa.Column("completed_at", UTCDateTime, nullable=True),
    sa.Column("multi", JSONType, nullable=True),
    sa.Index("ix_workflow_tasks_queue", "queue", "status", "due_at"),
    sa.Index("ix_workflow_tasks_assignee", "assignee", "status", "due_at"),
    sa.Index("ix_workflow_tasks_instance", "instance_id", "status"),
    # A tenant's inbox: a queue's or a person's tasks in keyset order (due date, then id).
    sa.Index("ix_workflow_tasks_tenant_queue", "tenant", "queue", "status", "due_at", "id"),
    sa.Index("ix_workflow_tasks_tenant_assignee", "tenant", "assignee", "status", "due_at", "id"),
)

timers = sa.Table(
    "workflow_timers",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("instance_id", UUIDStr, sa.ForeignKey("workflow_instances.id"), nullable=False),
    sa.Column("token_id", sa.String(100), nullable=False),
    sa.Column("node_id", sa.String(64), nullable=False),
    sa.Column("timer_id", sa.String(64), nullable=False),
    sa.Column("attempt_group", sa.Integer, nullable=False),
    sa.Column("due_at", UTCDateTime, nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("fired_at", UTCDateTime, nullable=True),
    # The pending timers in the order a tick takes them (``CLAIM_DUE_TIMERS``): a fired or
    # cancelled timer's row leaves it, so a tick neither adds an entry for each timer it fires
    # nor reads the ones fired before; the order needs no sort (workflow_0019).
    sa.Index(
        "ix_workflow_timers_due",
        "due_at",
        "id",
        **_only("status = 'pending'"),
    ),
    sa.Index("ix_workflow_timers_instance", "instance_id", "status"),
)

outbox = sa.Table(
    "workflow_outbox",
    metadata,
    sa.Column("id", BigIntPK, primary_key=True, autoincrement=True),
    sa.Column("topic", sa.String(100), nullable=False),
    sa.Column("key", sa.String(200), nullable=False),
    sa.Column("payload", JSONType, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("available_at", UTCDateTime, nullable=False),
    sa.Column("sent_at", UTCDateTime, nullable=True),
    sa.Column("attempts", sa.Integer, nullable=False, default=0),
    sa.Index("ix_workflow_outbox_unsent", "sent_at", "available_at"),
)

dead_letters = sa.Table(
    "workflow_dead_letters",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("instance_id", UUIDStr, sa.ForeignKey("workflow_instances.id"), nullable=False),
    sa.Column("step_run_id", UUIDStr, nullable=False),
    sa.Column("token_id", sa.String(100), nullable=False),
    sa.Column("node_id", sa.String(64), nullable=False),
    sa.Column("kind", sa.String(20), nullable=False),
    sa.Column("attempt_group", sa.Integer, nullable=False),
    sa.Column("reason", sa.String(100), nullable=False),
    sa.Column("last_error", JSONType, nullable=True),
    sa.Column("payload", JSONType, nullable=True),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("resolved_at", UTCDateTime, nullable=True),
    sa.Index("ix_workflow_dead_letters_status", "status", "created_at"),
)
