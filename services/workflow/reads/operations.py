"""The operators' read model: dead letters, the audit trail, step runs, stuck instances and
form submissions of an instance, and its port."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

import msgspec

from contracts.kernel import Actor
from contracts.workflow.case import READ_ACTIONS
from services.workflow.runtime.ports.access import Viewer


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


def read_entries(trail: list[AuditView]) -> list[AuditView]:
    """The entries of a trail that record a read (``contracts.workflow.case.READ_ACTIONS``)."""
    return [a for a in trail if a.action in READ_ACTIONS]


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


class OperationReads(Protocol):
    async def dead_letters(
        self,
        status: str | None,
        before: str | None,
        limit: int,
        *,
        instance_id: str | None = None,
        viewer: Viewer | None = None,
    ) -> list[DeadLetterView]:
        """Newest first; only one instance's when ``instance_id`` is given; with ``viewer``,
        only the letters of cases that person may see (``runtime.services.access``)."""
        ...

    async def dead_letter(
        self, letter_id: str, *, viewer: Viewer | None = None
    ) -> DeadLetterView | None:
        """The letter; ``None`` when unknown or (with ``viewer``) of a case hidden from them."""
        ...

    async def audit_trail(self, instance_id: str) -> list[AuditView]:
        """The instance's audit entries and those of its tasks, oldest first."""
        ...

    async def step_runs(self, instance_id: str) -> list[StepRunView]:
        """Every attempt of the instance: nodes in the order they first ran, each node's
        attempts oldest first (by attempt group, then attempt)."""
        ...

    async def stuck_instances(
        self, progress_before: datetime, limit: int, *, viewer: Viewer | None = None
    ) -> list[StuckInstanceView]:
        """Open instances whose last progress is older than ``progress_before``, the longest
        stuck first (the notion of progress the ``stuck`` gauge counts with); with ``viewer``,
        only the cases that person may see."""
        ...

    async def submissions(self, instance_id: str) -> list[SubmissionView]:
        """Every accepted form submission of the instance's tasks, oldest first."""
        ...
