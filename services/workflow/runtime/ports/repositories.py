"""One small port per row kind the engine writes: what a unit of work exposes as attributes.

``persistence.repositories`` implements them on SQL; ``tests/fakes/memory_uow.py`` in memory.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from contracts.kernel import Actor, AuditEntry
from services.workflow.runtime.ports.access import Viewer
from services.workflow.runtime.ports.records import (
    HistoryRecord,
    InstanceRecord,
    OutboxMessage,
    StepRunRecord,
    TaskRecord,
    TimerRecord,
    VersionRecord,
)


class Versions(Protocol):
    """Workflow definitions and their published versions (``uow.versions``)."""

    async def find_by_checksum(self, key: str, checksum: str) -> VersionRecord | None: ...

    async def add(
        self,
        *,
        key: str,
        name: str,
        checksum: str,
        schema: bytes,
        actor: Actor,
        tenant: str | None = None,
    ) -> VersionRecord:
        """Store a new published version; ``schema`` is the canonical JSON, kept verbatim;
        ``tenant``: the owner a new definition gets (``None``: the deployment's, shared)."""
        ...

    async def latest(self, key: str) -> VersionRecord | None: ...

    async def latest_id(self, key: str) -> str | None:
        """The id of the newest published version (without reading its schema)."""
        ...

    async def get(self, version_id: str) -> VersionRecord | None: ...

    async def number(self, key: str, number: int) -> VersionRecord | None: ...

    async def all(self, key: str | None = None) -> list[VersionRecord]: ...


class Instances(Protocol):
    """Workflow instances (``uow.instances``)."""

    async def next_protocol_number(self, series: str, year: int, *, tenant: str) -> int:
        """Allocate the next number of ``tenant``'s protocol series (``Numbering.series``: a
        definition's prefix, or a NUP unit's code) in ``year`` inside this transaction: it is
        given back if the transaction rolls back, and concurrent starts wait for each other (no
        gaps). ``tenant`` owns the counters: a tenant with a unit of its own, else the
        deployment's tenant (``TenantNumbering.of``)."""
        ...

    async def add(self, record: InstanceRecord) -> None: ...

    async def lock(self, instance_id: str) -> InstanceRecord | None: ...

    async def lock_many(self, instance_ids: list[str]) -> dict[str, InstanceRecord]:
        """Lock and read several instances (in id order); unknown ids are left out."""
        ...

    async def get(self, instance_id: str) -> InstanceRecord | None: ...

    async def find_by_protocol(self, protocol: str) -> InstanceRecord | None: ...

    async def update(self, record: InstanceRecord, *, expected_version: int) -> None:
        """Store ``record`` if the row is still at ``expected_version``; otherwise
        ``ConcurrentModification`` — now, or from a later statement or the commit of this
        unit of work (a store may send the update with them). Only what a decision changes is
        stored (status, current nodes, state, context, due, updated, ended, row version); the
        row's other columns keep the values it was added with."""
        ...

    async def repin(self, instance_id: str, *, version_id: str, definition_version: int) -> None:
        """Pin a locked instance to another version of its definition (a migration, in the
        unit of work that applies its ``Migrated`` event; ``update`` never changes the pin)."""
        ...

    async def cancel_open_work(self, instance_id: str, now: datetime) -> None:
        """Cancel every open step run and task of an instance that ends (nothing is returned,
        so a store may send it with the commit)."""
        ...

    async def in_flight_on(
        self, version_id: str, *, seen: tuple[Viewer, datetime] | None = None
    ) -> list[str]:
        """Ids of the unfinished instances pinned to a version, oldest first; with ``seen`` (a
        viewer and the moment), only those the viewer may see (``runtime.services.access``)."""
        ...


class History(Protocol):
    """An instance's history rows (``uow.history``)."""

    async def append(self, instance_id: str, seq: int, record: HistoryRecord) -> None: ...

    async def append_rows(self, instance_id: str, records: list[HistoryRecord]) -> None:
        """All history rows of one applied event, in one statement; ``ConcurrentModification``
        when one of their numbers is taken (another event was applied to that version)."""
        ...

    async def of(self, instance_id: str) -> list[HistoryRecord]: ...

    async def last_seq(self, instance_id: str) -> int: ...


class StepRuns(Protocol):
    """Attempts of automatic steps and their leases (``uow.steps``)."""

    async def add(self, record: StepRunRecord) -> None: ...

    async def get(self, step_run_id: str) -> StepRunRecord | None: ...

    async def get_with_instance(
        self, step_run_id: str
    ) -> tuple[StepRunRecord, InstanceRecord] | None:
        """A step run with its instance, in one read (what a claim starts from)."""
        ...

    async def update(self, step_run_id: str, **values: Any) -> None: ...

    async def claim(
        self,
        step_run_id: str,
        *,
        owner: str,
        now: datetime,
        lease_until: datetime,
        input: dict[str, Any] | None = None,
        checkpoint: dict[str, Any] | None = None,
    ) -> StepRunRecord | None:
        """Take the step's lease if it is scheduled."""
        ...

    async def take(
        self,
        step: StepRunRecord,
        *,
        owner: str,
        now: datetime,
        lease_until: datetime,
        input: dict[str, Any] | None = None,
        checkpoint: dict[str, Any] | None = None,
    ) -> StepRunRecord | None:
        """``claim`` for a step as just read (scheduled): the claimed record, or None when
        another worker took it first — or ``ClaimLost`` from a later statement or the commit of
        this unit of work (a store may send the claim with them)."""
        ...

    async def finish(self, step_run_id: str, *, owner: str, **values: Any) -> None:
        """Close a running step if ``owner`` still holds its lease. When it lost it (the sweeper
        took the attempt away) ``LeaseLost`` is raised, on every store: now, or from a later
        statement or the commit of this unit of work (a store may send the update with them);
        the unit of work's writes are then discarded."""
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

    async def of(self, instance_id: str) -> list[StepRunRecord]: ...

    async def cancel_open(self, instance_id: str, token_id: str | None) -> None: ...

    async def expired_leases(self, now: datetime, limit: int) -> list[StepRunRecord]: ...

    async def stranded(self, before: datetime, limit: int) -> list[StepRunRecord]:
        """Scheduled steps, due before ``before``, whose message was already sent."""
        ...


class Tasks(Protocol):
    """Human tasks as the engine creates and closes them (``uow.tasks``)."""

    async def add(self, record: TaskRecord) -> None: ...

    async def lock(self, task_id: str) -> TaskRecord | None: ...

    async def update(self, task_id: str, **values: Any) -> None: ...

    async def of(self, instance_id: str) -> list[TaskRecord]: ...

    async def close(
        self,
        instance_id: str,
        token_id: str,
        node_id: str,
        attempt_group: int,
        *,
        reason: str,
        now: datetime,
    ) -> None:
        """Cancel a token's open tasks at a node with ``reason``."""
        ...

    async def escalate(
        self, instance_id: str, token_id: str, node_id: str, attempt_group: int, queue: str
    ) -> None: ...

    async def cancel_open(
        self, instance_id: str, token_id: str | None, now: datetime
    ) -> list[str]: ...

    async def complete_signalled(
        self, instance_id: str, node_id: str, actor_id: str, now: datetime
    ) -> None: ...


class Timers(Protocol):
    """Timer events due at a moment (``uow.timers``)."""

    async def add(self, record: TimerRecord) -> None: ...

    async def cancel(
        self,
        instance_id: str,
        token_id: str | None,
        node_id: str | None,
        attempt_group: int | None,
        timer_ids: tuple[str, ...] | None,
    ) -> None:
        """Cancel pending timers; ``None`` filters mean "any"."""
        ...

    async def next_due(self, instance_id: str) -> datetime | None: ...

    async def lock(self, timer_row_id: str) -> TimerRecord | None: ...

    async def of(self, instance_id: str) -> list[TimerRecord]: ...

    async def mark_fired(self, timer_id: str, now: datetime) -> bool: ...

    async def claim_due(self, now: datetime, limit: int) -> list[TimerRecord]:
        """Pending timers due by ``now``, oldest first, locked together with their instances
        until the unit of work ends; on PostgreSQL a timer whose row or instance another
        transaction holds is skipped (``SKIP LOCKED``: concurrent ticks take disjoint
        batches and never wait for each other)."""
        ...

    async def mark_fired_many(self, timer_ids: list[str], now: datetime) -> set[str]:
        """Mark still-pending timers fired; the ids actually marked."""
        ...


class DeadLetters(Protocol):
    """Steps stopped for an operator (``uow.dead_letters``)."""

    async def add(self, values: dict[str, Any]) -> str: ...

    async def get(self, letter_id: str) -> dict[str, Any] | None: ...

    async def all(self, status: str | None = "open") -> list[dict[str, Any]]: ...

    async def resolve(self, letter_id: str, status: str, now: datetime) -> None: ...

    async def resolve_open(self, instance_id: str, status: str, now: datetime) -> list[str]:
        """Close every open dead letter of an instance; returns their ids, oldest first."""
        ...

    async def open_of(self, instance_id: str, token_id: str) -> list[str]:
        """Ids of one token's open dead letters, oldest first."""
        ...


class Outbox(Protocol):
    """Messages committed with the state that caused them (``uow.outbox``)."""

    async def enqueue(
        self, topic: str, key: str, payload: dict[str, Any], *, available_at: datetime
    ) -> None: ...

    async def due(self, now: datetime, limit: int) -> list[OutboxMessage]:
        """Unsent rows whose time has come, oldest first; rows other relays hold are skipped."""
        ...

    async def mark_sent(self, ids: list[int], now: datetime) -> None: ...

    async def next_due(self) -> datetime | None: ...


class AuditLog(Protocol):
    """The audit trail, in the unit of work's transaction (``uow.audit``)."""

    async def append(self, entry: AuditEntry) -> None: ...
