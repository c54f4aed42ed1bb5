"""The Structs the engine and persistence exchange, and the errors a store reports."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from contracts.kernel import Actor


class VersionRecord(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    definition_id: str
    key: str
    version: int
    status: str
    checksum: str
    schema: dict[str, Any]
    published_at: datetime | None
    tenant: str | None = None
    """The tenant whose definition this is (only its cases run it); ``None``: the
    deployment's, shared by every tenant."""


class InstanceRecord(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    tenant: str
    version_id: str
    definition_key: str
    definition_version: int
    protocol: str
    status: str
    current_nodes: list[str]
    state: dict[str, Any]
    context: dict[str, Any]
    subject_type: str | None
    subject_id: str | None
    business_key: str | None
    author_id: str | None
    due_at: datetime | None
    started_at: datetime
    updated_at: datetime
    ended_at: datetime | None
    row_version: int
    parent_instance_id: str | None = None
    """The instance whose call activity started this one (``None``: started on its own)."""


class StepRunRecord(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    instance_id: str
    token_id: str
    node_id: str
    kind: str
    queue: str
    attempt_group: int
    attempt: int
    idempotency_key: str
    status: str
    lease_owner: str | None
    lease_expires_at: datetime | None
    available_at: datetime
    input: dict[str, Any] | None
    output: dict[str, Any] | None
    error: dict[str, Any] | None
    checkpoint: dict[str, Any] | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


class TaskRecord(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    instance_id: str
    tenant: str
    """Its instance's tenant (a called child's is its parent's): the inbox scopes by it."""
    token_id: str
    node_id: str
    attempt_group: int
    name: str
    queue: str | None
    assignee: str | None
    status: str
    form: str | None
    outcomes: list[str]
    priority: int
    data: dict[str, Any] | None
    outcome: str | None
    completed_by: str | None
    due_at: datetime | None
    created_at: datetime
    claimed_at: datetime | None
    completed_at: datetime | None
    multi: dict[str, Any] | None = None
    """A multi-instance task's item and place (``OpenTask.multi``); kept after completion."""


class TimerRecord(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    instance_id: str
    token_id: str
    node_id: str
    timer_id: str
    attempt_group: int
    due_at: datetime
    status: str
    fired_at: datetime | None


class HistoryRecord(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    at: datetime
    event: str
    from_node: str | None
    to_node: str | None
    actor: Actor | None
    data: dict[str, Any]


class OutboxMessage(msgspec.Struct, frozen=True, kw_only=True):
    id: int
    topic: str
    key: str
    payload: dict[str, Any]
    available_at: datetime
    attempts: int


class LeaseLost(Exception):
    """The worker no longer holds the step's lease (the sweeper took the attempt away): the
    transaction that closes the step is rolled back and its result discarded."""


class ClaimLost(Exception):
    """Another worker took the step between its read and the claim (a duplicate delivery):
    the claiming transaction is rolled back and the delivery skipped."""
