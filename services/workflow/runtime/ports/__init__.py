"""What the engine needs from persistence, as protocols and the Structs they exchange.

``runtime`` never imports SQLAlchemy: ``persistence`` implements these ports and returns these
Structs, never rows.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

import msgspec

from contracts.kernel import Actor, AuditEntry


class VersionRecord(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    definition_id: str
    key: str
    version: int
    status: str
    checksum: str
    schema: dict[str, Any]
    published_at: datetime | None


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


class UnitOfWork(Protocol):
    """One transaction. ``async with uow:`` rolls back unless ``commit()`` was called.

    Implemented by ``persistence.unit_of_work.SqlUnitOfWork``; every method runs on the same
    connection, inside the same transaction.
    """

    async def __aenter__(self) -> UnitOfWork: ...

    async def __aexit__(self, *exc: object) -> None: ...

    async def commit(self) -> None: ...

    async def find_version_by_checksum(self, key: str, checksum: str) -> VersionRecord | None: ...

    async def add_version(
        self, *, key: str, name: str, checksum: str, schema: bytes, actor: Actor
    ) -> VersionRecord: ...

    async def latest_version(self, key: str) -> VersionRecord | None: ...

    async def latest_version_id(self, key: str) -> str | None:
        """The id of the newest published version (without reading its schema)."""
        ...

    async def get_version(self, version_id: str) -> VersionRecord | None: ...

    async def version_number(self, key: str, number: int) -> VersionRecord | None: ...

    async def list_versions(self, key: str | None = None) -> list[VersionRecord]: ...

    async def next_protocol_number(self, prefix: str, year: int) -> int:
        """Allocate the next number of a protocol series inside this transaction (no gaps)."""
        ...

    async def add_instance(self, record: InstanceRecord) -> None: ...

    async def lock_instance(self, instance_id: str) -> InstanceRecord | None: ...

    async def get_instance(self, instance_id: str) -> InstanceRecord | None: ...

    async def find_instance_by_protocol(self, protocol: str) -> InstanceRecord | None: ...

    async def update_instance(self, record: InstanceRecord, *, expected_version: int) -> None:
        """Store ``record`` if the row is still at ``expected_version``; otherwise
        ``ConcurrentModification`` — now, or from a later statement or the commit of this
        unit of work (a store may send the update with them)."""
        ...

    async def append_history(self, instance_id: str, seq: int, record: HistoryRecord) -> None: ...

    async def append_history_rows(self, instance_id: str, records: list[HistoryRecord]) -> None:
        """All history rows of one applied event, in one statement; ``ConcurrentModification``
        when one of their numbers is taken (another event was applied to that version)."""
        ...

    async def history(self, instance_id: str) -> list[HistoryRecord]: ...

    async def last_history_seq(self, instance_id: str) -> int: ...

    async def add_step_run(self, record: StepRunRecord) -> None: ...

    async def get_step_run(self, step_run_id: str) -> StepRunRecord | None: ...

    async def get_step_run_and_instance(
        self, step_run_id: str
    ) -> tuple[StepRunRecord, InstanceRecord] | None:
        """A step run with its instance, in one read (what a claim starts from)."""
        ...

    async def update_step_run(self, step_run_id: str, **values: Any) -> None: ...

    async def claim_step_run(
        self,
        step_run_id: str,
        *,
        owner: str,
        now: datetime,
        lease_until: datetime,
        input: dict[str, Any] | None = None,
        checkpoint: dict[str, Any] | None = None,
    ) -> StepRunRecord | None:
        """Take the step's lease if it is scheduled, or running under an expired lease."""
        ...

    async def take_step_run(
        self,
        step: StepRunRecord,
        *,
        owner: str,
        now: datetime,
        lease_until: datetime,
        input: dict[str, Any] | None = None,
        checkpoint: dict[str, Any] | None = None,
    ) -> StepRunRecord | None:
        """``claim_step_run`` for a step as just read (scheduled): the claimed record, or None
        when another worker took it first — or ``ClaimLost`` from a later statement or the
        commit of this unit of work (a store may send the claim with them)."""
        ...

    async def finish_step_run(self, step_run_id: str, *, owner: str, **values: Any) -> bool:
        """Close a running step if ``owner`` still holds its lease: false when it lost it — or
        ``LeaseLost`` from a later statement or the commit of this unit of work (a store may
        send the update with them)."""
        ...

    async def last_attempt(
        self, instance_id: str, node_id: str, kind: str, attempt_group: int
    ) -> int: ...

    async def budget_start(
        self, instance_id: str, node_id: str, kind: str, attempt_group: int
    ) -> int:
        """The last attempt of this attempt group that stopped for an operator (rejected by
        the partner, or dead-lettered), 0 if none: the attempts after it are a fresh budget."""
        ...

    async def last_checkpoint(
        self, instance_id: str, node_id: str, kind: str, attempt_group: int
    ) -> dict[str, Any] | None: ...

    async def step_runs(self, instance_id: str) -> list[StepRunRecord]: ...

    async def cancel_open_step_runs(self, instance_id: str, token_id: str | None) -> None: ...

    async def cancel_open_work(self, instance_id: str, now: datetime) -> None:
        """Cancel every open step run and task of an instance that ends (nothing is returned,
        so a store may send it with the commit)."""
        ...

    async def add_task(self, record: TaskRecord) -> None: ...

    async def lock_task(self, task_id: str) -> TaskRecord | None: ...

    async def update_task(self, task_id: str, **values: Any) -> None: ...

    async def tasks(self, instance_id: str) -> list[TaskRecord]: ...

    async def close_tasks(
        self,
        instance_id: str,
        token_id: str,
        node_id: str,
        attempt_group: int,
        *,
        reason: str,
        now: datetime,
    ) -> None:
        """Close a token's open tasks at a node. The task a person completed is marked by the"""
        ...

    async def escalate_tasks(
        self, instance_id: str, token_id: str, node_id: str, attempt_group: int, queue: str
    ) -> None: ...

    async def cancel_open_tasks(
        self, instance_id: str, token_id: str | None, now: datetime
    ) -> list[str]: ...

    async def add_timer(self, record: TimerRecord) -> None: ...

    async def cancel_timers(
        self,
        instance_id: str,
        token_id: str | None,
        node_id: str | None,
        attempt_group: int | None,
        timer_ids: tuple[str, ...] | None,
    ) -> None:
        """Cancel pending timers; ``None`` filters mean "any"."""
        ...

    async def next_timer_due(self, instance_id: str) -> datetime | None: ...

    async def lock_timer(self, timer_row_id: str) -> TimerRecord | None: ...

    async def due_timers(self, now: datetime, limit: int) -> list[TimerRecord]: ...

    async def timers(self, instance_id: str) -> list[TimerRecord]: ...

    async def mark_timer_fired(self, timer_id: str, now: datetime) -> bool: ...

    async def add_dead_letter(self, values: dict[str, Any]) -> str: ...

    async def get_dead_letter(self, letter_id: str) -> dict[str, Any] | None: ...

    async def list_dead_letters(self, status: str | None = "open") -> list[dict[str, Any]]: ...

    async def resolve_dead_letter(self, letter_id: str, status: str, now: datetime) -> None: ...

    async def resolve_open_dead_letters(
        self, instance_id: str, status: str, now: datetime
    ) -> list[str]:
        """Close every open dead letter of an instance; returns their ids, oldest first."""
        ...

    async def complete_signalled_tasks(
        self, instance_id: str, node_id: str, actor_id: str, now: datetime
    ) -> None: ...

    async def enqueue(
        self, topic: str, key: str, payload: dict[str, Any], *, available_at: datetime
    ) -> None: ...

    async def due_outbox(self, now: datetime, limit: int) -> list[OutboxMessage]:
        """Unsent rows whose time has come, oldest first; rows other relays hold are skipped."""
        ...

    async def mark_sent(self, ids: list[int], now: datetime) -> None: ...

    async def next_outbox_due(self) -> datetime | None: ...

    async def expired_leases(self, now: datetime, limit: int) -> list[StepRunRecord]: ...

    async def stranded_steps(self, before: datetime, limit: int) -> list[StepRunRecord]:
        """Scheduled steps, due before ``before``, whose message was already sent: the broker"""
        ...

    async def audit(self, entry: AuditEntry) -> None: ...
