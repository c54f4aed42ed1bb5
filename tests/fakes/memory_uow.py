"""An in-memory unit of work: the runtime's ports (``runtime.ports``) on Python dicts.

Beside the runtime's repositories it has the service's stores: ``human``, ``deadlines``,
``units`` and ``operations`` (``tests/fakes/memory_human``, ``memory_deadlines``,
``memory_units``, ``memory_operations``).

``MemoryDatabase`` holds the committed rows; each ``MemoryUnitOfWork`` works on a copy taken at
``async with`` and writes it back at ``commit()``, so a unit of work that is not committed
leaves nothing behind, as on the databases. It keeps the SQL stores' contracts the runtime's
services rely on: a moved instance version is ``ConcurrentModification``, a lost lease
``LeaseLost``, a taken step ``None`` from ``take``/``claim``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import msgspec

from contracts.errors import ConcurrentModification
from contracts.kernel import Actor, AuditEntry, Clock, IdGen
from services.workflow.persistence.repositories.instances import DECIDED_COLUMNS
from services.workflow.runtime.kernel.state import TERMINAL
from services.workflow.runtime.ports import (
    HistoryRecord,
    InstanceRecord,
    LeaseLost,
    OutboxMessage,
    StepRunRecord,
    TaskRecord,
    TimerRecord,
    VersionRecord,
)
from services.workflow.runtime.ports.deadlines import DeadlineRow
from services.workflow.runtime.ports.human import ActionRecord, FormRecord, QueueRecord
from services.workflow.runtime.ports.operations import Operation, OperationItem
from tests.fakes.memory_deadlines import MemoryDeadlines, StoredCalendar
from tests.fakes.memory_human import MemoryHuman
from tests.fakes.memory_operations import MemoryOperations
from tests.fakes.memory_units import MemoryUnits

OPEN_STEPS = ("scheduled", "running")
OPEN_TASKS = ("ready", "claimed")


@dataclass
class MemoryDatabase:
    """The committed rows of every kind the runtime writes."""

    definitions: dict[str, str] = field(default_factory=dict)  # key -> name
    versions: dict[str, VersionRecord] = field(default_factory=dict)
    instances: dict[str, InstanceRecord] = field(default_factory=dict)
    counters: dict[tuple[str, str, int], int] = field(default_factory=dict)
    history: dict[str, list[HistoryRecord]] = field(default_factory=dict)
    steps: dict[str, StepRunRecord] = field(default_factory=dict)
    tasks: dict[str, TaskRecord] = field(default_factory=dict)
    timers: dict[str, TimerRecord] = field(default_factory=dict)
    dead_letters: dict[str, dict[str, Any]] = field(default_factory=dict)
    outbox: list[OutboxMessage] = field(default_factory=list)
    sent: set[int] = field(default_factory=set)
    audit: list[AuditEntry] = field(default_factory=list)
    queues: dict[str, QueueRecord] = field(default_factory=dict)
    members: set[tuple[str, str]] = field(default_factory=set)  # (queue, user id)
    forms: dict[tuple[str, int], FormRecord] = field(default_factory=dict)
    submissions: list[dict[str, Any]] = field(default_factory=list)
    actions: dict[tuple[str, str], ActionRecord] = field(default_factory=dict)
    documents: dict[str, set[str]] = field(default_factory=dict)  # instance -> current types
    calendars: dict[tuple[str, int], StoredCalendar] = field(default_factory=dict)
    deadlines: dict[tuple[str, str], DeadlineRow] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)  # key -> name
    unit_queues: dict[str, str] = field(default_factory=dict)  # queue -> unit
    supervisors: set[tuple[str, str]] = field(default_factory=set)  # (unit, user id)
    operations: dict[str, Operation] = field(default_factory=dict)
    operation_items: dict[str, dict[str, OperationItem]] = field(default_factory=dict)
    last_outbox_id: int = 0
    commits: int = 0

    def copy(self) -> MemoryDatabase:
        return copy.deepcopy(self)


class _Repo:
    def __init__(self, uow: MemoryUnitOfWork) -> None:
        self._uow = uow

    @property
    def _db(self) -> MemoryDatabase:
        return self._uow.working


class MemoryVersions(_Repo):
    async def find_by_checksum(self, key: str, checksum: str) -> VersionRecord | None:
        found = [v for v in self._db.versions.values() if (v.key, v.checksum) == (key, checksum)]
        return found[0] if found else None

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
        self._db.definitions.setdefault(key, name)
        owner = next((v.tenant for v in self._db.versions.values() if v.key == key), tenant)
        number = 1 + max((v.version for v in self._db.versions.values() if v.key == key), default=0)
        record = VersionRecord(
            id=str(self._uow.ids.new_id()),
            definition_id=key,
            key=key,
            version=number,
            status="published",
            checksum=checksum,
            schema=msgspec.json.decode(schema),
            published_at=self._uow.clock.now(),
            tenant=owner,
        )
        self._db.versions[record.id] = record
        return record

    async def latest(self, key: str) -> VersionRecord | None:
        found = [v for v in self._db.versions.values() if v.key == key]
        return max(found, key=lambda v: v.version) if found else None

    async def latest_id(self, key: str) -> str | None:
        latest = await self.latest(key)
        return None if latest is None else latest.id

    async def get(self, version_id: str) -> VersionRecord | None:
        return self._db.versions.get(version_id)

    async def number(self, key: str, number: int) -> VersionRecord | None:
        found = [v for v in self._db.versions.values() if (v.key, v.version) == (key, number)]
        return found[0] if found else None

    async def all(self, key: str | None = None) -> list[VersionRecord]:
        found = [v for v in self._db.versions.values() if key is None or v.key == key]
        return sorted(found, key=lambda v: (v.key, v.version))


class MemoryInstances(_Repo):
    async def next_protocol_number(self, series: str, year: int, *, tenant: str) -> int:
        number = self._db.counters.get((tenant, series, year), 0) + 1
        self._db.counters[(tenant, series, year)] = number
        return number

    async def add(self, record: InstanceRecord) -> None:
        self._db.instances[record.id] = record

    async def lock(self, instance_id: str) -> InstanceRecord | None:
        return self._db.instances.get(instance_id)

    async def lock_many(self, instance_ids: list[str]) -> dict[str, InstanceRecord]:
        return {i: self._db.instances[i] for i in sorted(instance_ids) if i in self._db.instances}

    async def get(self, instance_id: str) -> InstanceRecord | None:
        return self._db.instances.get(instance_id)

    async def find_by_protocol(self, protocol: str) -> InstanceRecord | None:
        found = [i for i in self._db.instances.values() if i.protocol == protocol]
        return found[0] if found else None

    async def update(self, record: InstanceRecord, *, expected_version: int) -> None:
        stored = self._db.instances.get(record.id)
        if stored is None or stored.row_version != expected_version:
            raise ConcurrentModification(
                "the instance changed since it was read",
                instance_id=record.id,
                expected_version=expected_version,
            )
        # As the SQL store: only what a decision changes is written, never the pin.
        self._db.instances[record.id] = msgspec.structs.replace(
            stored, **{c: getattr(record, c) for c in DECIDED_COLUMNS}
        )

    async def repin(self, instance_id: str, *, version_id: str, definition_version: int) -> None:
        self._db.instances[instance_id] = msgspec.structs.replace(
            self._db.instances[instance_id],
            version_id=version_id,
            definition_version=definition_version,
        )

    async def in_flight_on(self, version_id: str, *, seen: Any = None) -> list[str]:
        if seen is not None:
            raise NotImplementedError("access levels are not kept in memory")
        found = [
            i
            for i in self._db.instances.values()
            if i.version_id == version_id and i.status not in TERMINAL
        ]
        return [i.id for i in sorted(found, key=lambda i: (i.started_at, i.id))]

    async def cancel_open_work(self, instance_id: str, now: datetime) -> None:
        for s in list(self._db.steps.values()):
            if s.instance_id == instance_id and s.status in OPEN_STEPS:
                self._db.steps[s.id] = msgspec.structs.replace(
                    s, status="cancelled", finished_at=now
                )
        for t in list(self._db.tasks.values()):
            if t.instance_id == instance_id and t.status in OPEN_TASKS:
                self._db.tasks[t.id] = msgspec.structs.replace(
                    t, status="cancelled", completed_at=now
                )


class MemoryHistory(_Repo):
    async def append(self, instance_id: str, seq: int, record: HistoryRecord) -> None:
        await self.append_rows(instance_id, [msgspec.structs.replace(record, seq=seq)])

    async def append_rows(self, instance_id: str, records: list[HistoryRecord]) -> None:
        rows = self._db.history.setdefault(instance_id, [])
        taken = {r.seq for r in rows}
        if any(r.seq in taken for r in records):
            raise ConcurrentModification(
                "the instance changed since it was read", instance_id=instance_id
            )
        rows.extend(records)

    async def of(self, instance_id: str) -> list[HistoryRecord]:
        return sorted(self._db.history.get(instance_id, []), key=lambda r: r.seq)

    async def last_seq(self, instance_id: str) -> int:
        return max((r.seq for r in self._db.history.get(instance_id, [])), default=0)


class MemoryStepRuns(_Repo):
    async def add(self, record: StepRunRecord) -> None:
        self._db.steps[record.id] = record

    async def get(self, step_run_id: str) -> StepRunRecord | None:
        return self._db.steps.get(step_run_id)

    async def get_with_instance(
        self, step_run_id: str
    ) -> tuple[StepRunRecord, InstanceRecord] | None:
        step = self._db.steps.get(step_run_id)
        return None if step is None else (step, self._db.instances[step.instance_id])

    async def update(self, step_run_id: str, **values: Any) -> None:
        self._db.steps[step_run_id] = msgspec.structs.replace(self._db.steps[step_run_id], **values)

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
        step = self._db.steps.get(step_run_id)
        if step is None or step.status != "scheduled" or step.available_at > now:
            return None
        claimed = msgspec.structs.replace(
            step,
            status="running",
            lease_owner=owner,
            lease_expires_at=lease_until,
            started_at=now,
            input=input,
            checkpoint=checkpoint,
        )
        self._db.steps[step.id] = claimed
        return claimed

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
        return await self.claim(
            step.id,
            owner=owner,
            now=now,
            lease_until=lease_until,
            input=input,
            checkpoint=checkpoint,
        )

    async def finish(self, step_run_id: str, *, owner: str, **values: Any) -> None:
        step = self._db.steps.get(step_run_id)
        if step is None or step.status != "running" or step.lease_owner != owner:
            raise LeaseLost
        self._db.steps[step_run_id] = msgspec.structs.replace(step, **values)

    def _group(self, instance_id: str, node_id: str, kind: str, group: int) -> list[StepRunRecord]:
        return [
            s
            for s in self._db.steps.values()
            if (s.instance_id, s.node_id, s.kind, s.attempt_group)
            == (instance_id, node_id, kind, group)
        ]

    async def last_attempt(
        self, instance_id: str, node_id: str, kind: str, attempt_group: int
    ) -> int:
        runs = self._group(instance_id, node_id, kind, attempt_group)
        return max((s.attempt for s in runs), default=0)

    async def budget_start(
        self, instance_id: str, node_id: str, kind: str, attempt_group: int
    ) -> int:
        lettered = {d.get("step_run_id") for d in self._db.dead_letters.values()}
        runs = self._group(instance_id, node_id, kind, attempt_group)
        stopped = [s.attempt for s in runs if s.status == "rejected" or s.id in lettered]
        return max(stopped, default=0)

    async def last_checkpoint(
        self, instance_id: str, node_id: str, kind: str, attempt_group: int
    ) -> dict[str, Any] | None:
        runs = [s for s in self._group(instance_id, node_id, kind, attempt_group) if s.checkpoint]
        return dict(max(runs, key=lambda s: s.attempt).checkpoint or {}) if runs else None

    async def of(self, instance_id: str) -> list[StepRunRecord]:
        runs = [s for s in self._db.steps.values() if s.instance_id == instance_id]
        return sorted(runs, key=lambda s: (s.created_at, s.id))

    async def cancel_open(self, instance_id: str, token_id: str | None) -> None:
        for s in list(self._db.steps.values()):
            mine = s.instance_id == instance_id and token_id in (None, s.token_id)
            if mine and s.status in OPEN_STEPS:
                await self.update(s.id, status="cancelled", finished_at=self._uow.clock.now())

    async def expired_leases(self, now: datetime, limit: int) -> list[StepRunRecord]:
        runs = [
            s
            for s in self._db.steps.values()
            if s.status == "running" and s.lease_expires_at and s.lease_expires_at < now
        ]
        return sorted(runs, key=lambda s: s.lease_expires_at or now)[:limit]

    async def stranded(self, before: datetime, limit: int) -> list[StepRunRecord]:
        unsent = {m.key for m in self._db.outbox if m.id not in self._db.sent}
        runs = [
            s
            for s in self._db.steps.values()
            if s.status == "scheduled" and s.available_at < before and s.id not in unsent
        ]
        return sorted(runs, key=lambda s: s.available_at)[:limit]


class MemoryTasks(_Repo):
    async def add(self, record: TaskRecord) -> None:
        self._db.tasks[record.id] = record

    async def lock(self, task_id: str) -> TaskRecord | None:
        return self._db.tasks.get(task_id)

    async def update(self, task_id: str, **values: Any) -> None:
        self._db.tasks[task_id] = msgspec.structs.replace(self._db.tasks[task_id], **values)

    async def of(self, instance_id: str) -> list[TaskRecord]:
        found = [t for t in self._db.tasks.values() if t.instance_id == instance_id]
        return sorted(found, key=lambda t: (t.created_at, t.id))

    def _open_at(
        self, instance_id: str, node_id: str, token_id: str | None = None, group: int | None = None
    ) -> list[TaskRecord]:
        return [
            t
            for t in self._db.tasks.values()
            if t.instance_id == instance_id
            and t.node_id == node_id
            and t.status in OPEN_TASKS
            and (token_id is None or t.token_id == token_id)
            and (group is None or t.attempt_group == group)
        ]

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
        for t in self._open_at(instance_id, node_id, token_id, attempt_group):
            await self.update(
                t.id, status="cancelled", completed_at=now, outcome=f"closed:{reason}"
            )

    async def escalate(
        self, instance_id: str, token_id: str, node_id: str, attempt_group: int, queue: str
    ) -> None:
        for t in self._open_at(instance_id, node_id, token_id, attempt_group):
            await self.update(t.id, queue=queue, assignee=None, status="ready", claimed_at=None)

    async def cancel_open(self, instance_id: str, token_id: str | None, now: datetime) -> list[str]:
        ids = [
            t.id
            for t in self._db.tasks.values()
            if t.instance_id == instance_id
            and t.status in OPEN_TASKS
            and (token_id is None or t.token_id == token_id)
        ]
        for task_id in ids:
            await self.update(task_id, status="cancelled", completed_at=now)
        return ids

    async def complete_signalled(
        self, instance_id: str, node_id: str, actor_id: str, now: datetime
    ) -> None:
        for t in self._open_at(instance_id, node_id):
            await self.update(
                t.id,
                status="completed",
                completed_by=actor_id,
                completed_at=now,
                outcome="signalled",
            )


class MemoryTimers(_Repo):
    async def add(self, record: TimerRecord) -> None:
        self._db.timers[record.id] = record

    async def cancel(
        self,
        instance_id: str,
        token_id: str | None,
        node_id: str | None,
        attempt_group: int | None,
        timer_ids: tuple[str, ...] | None,
    ) -> None:
        for t in list(self._db.timers.values()):
            if (
                t.instance_id == instance_id
                and t.status == "pending"
                and token_id in (None, t.token_id)
                and node_id in (None, t.node_id)
                and attempt_group in (None, t.attempt_group)
                and (timer_ids is None or t.timer_id in timer_ids)
            ):
                self._db.timers[t.id] = msgspec.structs.replace(t, status="cancelled")

    async def next_due(self, instance_id: str) -> datetime | None:
        pending = [t.due_at for t in await self.of(instance_id) if t.status == "pending"]
        return min(pending, default=None)

    async def lock(self, timer_row_id: str) -> TimerRecord | None:
        return self._db.timers.get(timer_row_id)

    async def of(self, instance_id: str) -> list[TimerRecord]:
        return [t for t in self._db.timers.values() if t.instance_id == instance_id]

    async def mark_fired(self, timer_id: str, now: datetime) -> bool:
        timer = self._db.timers.get(timer_id)
        if timer is None or timer.status != "pending":
            return False
        self._db.timers[timer_id] = msgspec.structs.replace(timer, status="fired", fired_at=now)
        return True

    async def claim_due(self, now: datetime, limit: int) -> list[TimerRecord]:
        found = [
            t
            for t in self._db.timers.values()
            if t.status == "pending" and t.due_at <= now and t.instance_id in self._db.instances
        ]
        return sorted(found, key=lambda t: (t.due_at, t.id))[:limit]

    async def mark_fired_many(self, timer_ids: list[str], now: datetime) -> set[str]:
        return {i for i in timer_ids if await self.mark_fired(i, now)}


class MemoryDeadLetters(_Repo):
    async def add(self, values: dict[str, Any]) -> str:
        letter_id = str(self._uow.ids.new_id())
        self._db.dead_letters[letter_id] = {"id": letter_id, "status": "open", **values}
        return letter_id

    async def get(self, letter_id: str) -> dict[str, Any] | None:
        found = self._db.dead_letters.get(letter_id)
        return None if found is None else dict(found)

    async def all(self, status: str | None = "open") -> list[dict[str, Any]]:
        return [dict(d) for d in self._db.dead_letters.values() if status in (None, d["status"])]

    async def resolve(self, letter_id: str, status: str, now: datetime) -> None:
        self._db.dead_letters[letter_id].update(status=status, resolved_at=now)

    async def resolve_open(self, instance_id: str, status: str, now: datetime) -> list[str]:
        ids = [
            d["id"]
            for d in self._db.dead_letters.values()
            if d.get("instance_id") == instance_id and d["status"] == "open"
        ]
        for letter_id in ids:
            await self.resolve(letter_id, status, now)
        return ids

    async def open_of(self, instance_id: str, token_id: str) -> list[str]:
        """Insertion order: the order the letters were made in (``created_at`` in SQL)."""
        return [
            d["id"]
            for d in self._db.dead_letters.values()
            if (d.get("instance_id"), d.get("token_id"), d["status"])
            == (instance_id, token_id, "open")
        ]


class MemoryOutbox(_Repo):
    async def enqueue(
        self, topic: str, key: str, payload: dict[str, Any], *, available_at: datetime
    ) -> None:
        self._db.last_outbox_id += 1
        message = OutboxMessage(
            id=self._db.last_outbox_id,
            topic=topic,
            key=key,
            payload=payload,
            available_at=available_at,
            attempts=0,
        )
        self._db.outbox.append(message)

    async def due(self, now: datetime, limit: int) -> list[OutboxMessage]:
        found = [m for m in self._db.outbox if m.id not in self._db.sent and m.available_at <= now]
        return found[:limit]

    async def mark_sent(self, ids: list[int], now: datetime) -> None:
        self._db.sent.update(ids)

    async def next_due(self) -> datetime | None:
        unsent = [m.available_at for m in self._db.outbox if m.id not in self._db.sent]
        return min(unsent, default=None)


class MemoryAuditLog(_Repo):
    async def append(self, entry: AuditEntry) -> None:
        self._db.audit.append(entry)


class MemoryUnitOfWork:
    """Implements ``runtime.ports.UnitOfWork`` on a :class:`MemoryDatabase`."""

    def __init__(self, database: MemoryDatabase, clock: Clock, ids: IdGen) -> None:
        self.database = database
        self.clock = clock
        self.ids = ids
        self._working: MemoryDatabase | None = None
        self.versions = MemoryVersions(self)
        self.instances = MemoryInstances(self)
        self.history = MemoryHistory(self)
        self.steps = MemoryStepRuns(self)
        self.tasks = MemoryTasks(self)
        self.timers = MemoryTimers(self)
        self.dead_letters = MemoryDeadLetters(self)
        self.outbox = MemoryOutbox(self)
        self.audit = MemoryAuditLog(self)
        self.human = MemoryHuman(self)
        self.deadlines = MemoryDeadlines(self)
        self.units = MemoryUnits(self)
        self.operations = MemoryOperations(self)

    @property
    def working(self) -> MemoryDatabase:
        if self._working is None:
            raise RuntimeError("unit of work used outside 'async with'")
        return self._working

    async def __aenter__(self) -> MemoryUnitOfWork:
        self._working = self.database.copy()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._working = None

    async def commit(self) -> None:
        working = self.working
        working.commits += 1
        self.database.__dict__.update(working.__dict__)
        self._working = working.copy()

    async def rollback(self) -> None:
        self._working = None
