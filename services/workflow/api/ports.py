"""What the HTTP API reads beyond the engine contract, as a port and the Structs it returns.

The API must not import SQLAlchemy (import-linter), so searches, dead letters, versions and the
audit trail are read through :class:`ApiReads`, implemented by
``services.workflow.persistence.search_repo.SqlApiReads`` and handed over in the service's
``extras["api_reads"]``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

import msgspec

from contracts.kernel import Actor
from contracts.workflow.types import SubjectRef

MAX_PAGE = 100


class InstanceQuery(msgspec.Struct, frozen=True, kw_only=True):
    """Filters of an instance search; ``fields`` only holds keys the definition marks searchable.

    Results come newest first (ids are UUIDv7, so id order is start order); ``before`` is the
    keyset cursor: the last id of the previous page.
    """

    definition_key: str | None = None
    status: str | None = None
    subject_type: str | None = None
    subject_id: str | None = None
    protocol: str | None = None
    business_key: str | None = None
    started_from: datetime | None = None
    started_to: datetime | None = None
    fields: dict[str, str] = {}
    node: str | None = None
    """Instances with an open task on this node."""
    queue: str | None = None
    """Instances with an open task in this queue."""
    overdue_at: datetime | None = None
    """Instances with an open task due before this moment (overdue now)."""
    before: str | None = None
    limit: int = 50


class InstanceSummary(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    protocol: str
    definition_key: str
    definition_version: int
    status: str
    subject: SubjectRef | None
    business_key: str | None
    started_at: datetime
    updated_at: datetime
    ended_at: datetime | None


class VersionSummary(msgspec.Struct, frozen=True, kw_only=True):
    key: str
    version: int
    status: str
    checksum: str
    published_at: datetime | None


class VersionDocument(msgspec.Struct, frozen=True, kw_only=True):
    key: str
    version: int
    checksum: str
    published_at: datetime | None
    definition: dict[str, Any]


class DeadLetterView(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    instance_id: str
    node_id: str
    kind: str
    attempt_group: int
    reason: str
    attempts: int
    status: str
    created_at: datetime
    resolved_at: datetime | None
    last_error: dict[str, Any] | None = None


class AuditView(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    at: datetime
    action: str
    object_type: str
    object_id: str
    actor: Actor
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    reason: str | None


class PublicSource(msgspec.Struct, frozen=True, kw_only=True):
    """What the citizen timeline is computed from (never sent as is)."""

    protocol: str
    status: str
    started_at: datetime
    ended_at: datetime | None
    definitions: dict[str, dict[str, Any]]
    """Version id -> definition, for every version the instance has been on."""
    entered: list[tuple[str, datetime, str]]
    """(node id, when, version id it was entered on) for every history row that entered a node,
    in order — except the moves a migration made: a migration is not a step of the case, and
    what happened before it keeps the labels of the version it happened on."""
    suspensions: list[tuple[datetime, datetime | None, str | None]] = []
    """(suspended at, resumed at or ``None``, legal basis) for every suspension (sobrestamento)
    of the instance's legal deadlines, in order; the reason is internal and not read here."""


class StepRunView(msgspec.Struct, frozen=True, kw_only=True):
    """One attempt of one node (a row of ``workflow_step_runs``), for operators.

    Input, output and the checkpoint's content stay in the database (they may hold personal
    data): the view only says whether a checkpoint exists. ``error`` is what the executor kept
    (its type and structured identifiers, not the exception's message).
    """

    id: str
    node_id: str
    kind: str
    queue: str
    attempt_group: int
    attempt: int
    status: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    lease_expires_at: datetime | None
    error: dict[str, Any] | None
    has_checkpoint: bool


class StuckInstanceView(msgspec.Struct, frozen=True, kw_only=True):
    """An open instance and the last time it made progress (its ``updated_at``)."""

    id: str
    protocol: str
    definition_key: str
    definition_version: int
    status: str
    current_nodes: tuple[str, ...]
    last_progress_at: datetime


class SubmissionView(msgspec.Struct, frozen=True, kw_only=True):
    """A stored form submission of an instance: the snapshot bytes as the task service wrote
    them (``services.workflow.forms.decode_snapshot`` reads them back)."""

    id: str
    task_id: str
    form_key: str
    form_version: int
    snapshot: bytes
    actor_id: str | None
    submitted_at: datetime


class ApiReads(Protocol):
    async def search(self, query: InstanceQuery) -> list[InstanceSummary]: ...

    async def open_instances_for(
        self, *, business_key: str | None, protocol: str | None
    ) -> list[InstanceSummary]:
        """Instances not yet finished, by business key or protocol (message correlation)."""
        ...

    async def versions(self, key: str | None) -> list[VersionSummary]: ...

    async def version(self, key: str, number: int | None) -> VersionDocument | None:
        """One version (the latest published when ``number`` is ``None``)."""
        ...

    async def dead_letters(
        self, status: str | None, before: str | None, limit: int, *, instance_id: str | None = None
    ) -> list[DeadLetterView]:
        """Newest first; only one instance's when ``instance_id`` is given."""
        ...

    async def dead_letter(self, letter_id: str) -> DeadLetterView | None: ...

    async def audit_trail(self, instance_id: str) -> list[AuditView]:
        """The instance's audit entries and those of its tasks, oldest first."""
        ...

    async def public_source(self, protocol: str) -> PublicSource | None: ...

    async def step_runs(self, instance_id: str) -> list[StepRunView]:
        """Every attempt of the instance: nodes in the order they first ran, each node's
        attempts oldest first (by attempt group, then attempt)."""
        ...

    async def stuck_instances(
        self, progress_before: datetime, limit: int
    ) -> list[StuckInstanceView]:
        """Open instances whose last progress is older than ``progress_before``, the longest
        stuck first (the notion of progress the ``stuck`` gauge counts with)."""
        ...

    async def submissions(self, instance_id: str) -> list[SubmissionView]:
        """Every accepted form submission of the instance's tasks, oldest first."""
        ...
