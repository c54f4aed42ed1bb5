"""Structs that cross the workflow service's boundary (API bodies, callbacks, handler calls).

Persisted or queued payloads carry ``format`` so that old rows stay readable after a change.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import msgspec

from contracts.kernel import Actor

InstanceStatus = Literal[
    "created",
    "running",
    "waiting",
    "stalled",
    "compensating",
    "completed",
    "rejected",
    "expired",
    "failed",
    "cancelled",
]
"""``running``: a step is scheduled; ``waiting``: on a person or a timer; ``stalled``: a step
needs an operator (pending task or dead letter); ``compensating``: saga compensations run before
``failed``. The last five are terminal."""
TERMINAL_STATUSES: frozenset[str] = frozenset(
    {"completed", "rejected", "expired", "failed", "cancelled"}
)
TaskStatus = Literal["ready", "claimed", "completed", "cancelled"]


class SubjectRef(msgspec.Struct, frozen=True, kw_only=True):
    """The domain object an instance is about (a gazette act, an e-SIC request...)."""

    type: str
    id: str


class StartRequest(msgspec.Struct, frozen=True, kw_only=True):
    definition_key: str
    context: dict[str, Any] = {}
    version: int | None = None
    subject: SubjectRef | None = None
    business_key: str | None = None
    actor: Actor = Actor(kind="system", id="api")
    tenant: str | None = None
    """The tenant the case belongs to (``None``: the deployment's own, ``settings.tenant``)."""


class FailureView(msgspec.Struct, frozen=True, kw_only=True):
    """Why a failed instance failed: stable codes plus a sentence for people (pt-BR).

    ``reason`` is the engine's code (``condition_error``, ``retry_ceiling``...), ``cause`` the
    failed rule's own code when a rule failed at run time (``timeout``, ``division_by_zero``,
    ``activation_too_large``, ``missing_variable``...). Never data from the context.
    """

    reason: str
    node_id: str | None = None
    cause: str | None = None
    message: str


class InstanceView(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    protocol: str
    definition_key: str
    definition_version: int
    status: InstanceStatus
    current_nodes: tuple[str, ...]
    subject: SubjectRef | None
    business_key: str | None
    started_at: datetime
    updated_at: datetime
    ended_at: datetime | None
    due_at: datetime | None
    row_version: int
    context: dict[str, Any] = {}
    failure: FailureView | None = None
    """Set once the instance failed (or is compensating after a failure)."""
    parent_instance_id: str | None = None
    """The instance whose call activity started this one (``None``: started on its own)."""


class TaskMulti(msgspec.Struct, frozen=True, kw_only=True):
    """Which item a task of a multi-instance node works on: the node's ``item`` name, the
    item's value (from the case's context, as the node was entered), its ``index`` (from 0:
    its place in the list and in ``<node>_results``) and ``total``, the number of items."""

    item: str
    value: Any
    index: int
    total: int


class TaskView(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    instance_id: str
    protocol: str
    node_id: str
    name: str
    queue: str | None
    assignee: str | None
    status: TaskStatus
    form: str | None
    outcomes: tuple[str, ...]
    priority: int
    created_at: datetime
    due_at: datetime | None
    claimed_at: datetime | None
    completed_at: datetime | None
    multi: TaskMulti | None = None
    """Set on a task of a multi-instance node (``None`` otherwise)."""


class HistoryEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One recorded transition of an instance, in order."""

    seq: int
    at: datetime
    event: str
    from_node: str | None
    to_node: str | None
    actor: Actor | None
    data: dict[str, Any] = {}


class TransitionEvent(msgspec.Struct, frozen=True, kw_only=True):
    """Delivered to a module's subject listener after the transition committed (from the outbox).

    Carries identifiers and labels only; the module reads its own records for anything else.
    """

    format: int = 1
    instance_id: str
    protocol: str
    definition_key: str
    subject: SubjectRef | None
    event: str
    from_node: str | None
    to_node: str | None
    status: InstanceStatus
    at: datetime
    public_label: str | None = None
    outcome: str | None = None


class StepInput(msgspec.Struct, frozen=True, kw_only=True):
    """What a handler receives for one attempt of one node.

    ``idempotency_key`` is derived from ``(instance_id, node_id, attempt_group)``: it is the same
    on every retry and on reprocessing, and changes only when the instance enters the node anew.
    Send it as the ``Idempotency-Key`` header where the partner supports it. ``reference`` is the
    instance's protocol number, for partners that can be queried by it (reconciliation).
    """

    format: int = 1
    instance_id: str
    protocol: str
    definition_key: str
    node_id: str
    attempt_group: int
    attempt: int
    idempotency_key: str
    reference: str
    data: dict[str, Any]
    checkpoint: dict[str, Any] | None = None
    template: str | None = None


class StepResult(msgspec.Struct, frozen=True, kw_only=True):
    """The output of a step: merged into the instance context (only declared ``produces`` keys)."""

    output: dict[str, Any] = {}
