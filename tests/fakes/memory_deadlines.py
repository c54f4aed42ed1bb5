"""The calendars-and-deadlines store of the in-memory unit of work (``uow.deadlines``), with
the SQL store's contracts (``persistence.deadlines_repo.SqlDeadlineRepo``): a stored calendar
version is never replaced (``add_calendar`` answers False), lists sorted as it sorts them, the
bound timer's move also moves the SLA of the task it bounds, and ``counted`` reads the audit."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

import msgspec

from services.workflow.calendar import CalendarSpec
from services.workflow.runtime.ports import TimerRecord
from services.workflow.runtime.ports.deadlines import CalendarVersionRow, DeadlineRow
from services.workflow.runtime.services.legal_time import COUNTED_ACTION
from tests.fakes.memory_human import DuplicateKey

if TYPE_CHECKING:
    from tests.fakes.memory_uow import MemoryDatabase, MemoryUnitOfWork

BOUND_TIMER_STATUSES = ("pending", "suspended")
OPEN_TASKS = ("ready", "claimed")


class MemoryDeadlines:
    def __init__(self, uow: MemoryUnitOfWork) -> None:
        self._uow = uow

    @property
    def _db(self) -> MemoryDatabase:
        return self._uow.working

    # --- calendars ----------------------------------------------------------------------------

    async def calendar(self, key: str, version: int) -> CalendarSpec | None:
        found = self._db.calendars.get((key, version))
        return None if found is None else found.spec

    async def latest_calendar(self, key: str) -> CalendarSpec | None:
        versions = [v for k, v in self._db.calendars if k == key]
        return None if not versions else self._db.calendars[(key, max(versions))].spec

    async def add_calendar(self, spec: CalendarSpec, *, at: datetime, by: str) -> bool:
        if (spec.key, spec.version) in self._db.calendars:
            return False
        self._db.calendars[(spec.key, spec.version)] = StoredCalendar(
            spec=spec, created_at=at, created_by=by
        )
        return True

    async def latest_calendars(self) -> list[CalendarSpec]:
        keys = sorted({k for k, _ in self._db.calendars})
        return [spec for k in keys if (spec := await self.latest_calendar(k)) is not None]

    async def calendar_versions(self, key: str) -> list[CalendarVersionRow]:
        found = sorted(
            (s for (k, _), s in self._db.calendars.items() if k == key),
            key=lambda s: -s.spec.version,
        )
        return [
            CalendarVersionRow(
                key=key,
                version=s.spec.version,
                checksum=s.spec.checksum,
                created_at=s.created_at,
                created_by=s.created_by,
            )
            for s in found
        ]

    # --- deadlines ----------------------------------------------------------------------------

    async def deadline(self, instance_id: str, name: str) -> DeadlineRow | None:
        return self._db.deadlines.get((instance_id, name))

    async def deadlines(self, instance_id: str) -> list[DeadlineRow]:
        found = [r for (i, _), r in self._db.deadlines.items() if i == instance_id]
        return sorted(found, key=lambda r: r.name)

    async def add_deadline(self, row: DeadlineRow) -> None:
        if (row.instance_id, row.name) in self._db.deadlines:
            raise DuplicateKey(f"deadline {row.name}")
        self._db.deadlines[(row.instance_id, row.name)] = row

    async def update_deadline(self, row: DeadlineRow) -> None:
        stored = self._db.deadlines.get((row.instance_id, row.name))
        if stored is not None:  # an UPDATE that matches nothing changes nothing
            kept = msgspec.structs.replace(row, started_at=stored.started_at)
            self._db.deadlines[(row.instance_id, row.name)] = kept

    async def replace_deadline(self, row: DeadlineRow) -> None:
        if (row.instance_id, row.name) in self._db.deadlines:
            self._db.deadlines[(row.instance_id, row.name)] = row

    async def stale_on(self, calendar_key: str, version: int) -> list[tuple[str, str]]:
        running = {i.id for i in self._db.instances.values() if i.ended_at is None}
        return sorted(
            (i, n)
            for (i, n), r in self._db.deadlines.items()
            if r.calendar_key == calendar_key and r.calendar_version < version and i in running
        )

    # --- the timer bound to a deadline -------------------------------------------------------

    async def bound_timer(self, instance_id: str, timer_id: str) -> TimerRecord | None:
        found = [
            t
            for t in self._db.timers.values()
            if t.instance_id == instance_id
            and t.timer_id == timer_id
            and t.status in BOUND_TIMER_STATUSES
        ]
        return max(found, key=lambda t: (t.attempt_group, t.due_at)) if found else None

    async def move_timer(self, timer: TimerRecord, *, status: str, due_at: datetime) -> None:
        stored = self._db.timers[timer.id]
        self._db.timers[timer.id] = msgspec.structs.replace(stored, status=status, due_at=due_at)

        def same_place(row: Any) -> bool:
            return (row.instance_id, row.token_id, row.node_id, row.attempt_group) == (
                timer.instance_id,
                timer.token_id,
                timer.node_id,
                timer.attempt_group,
            )

        pending = [
            t.due_at for t in self._db.timers.values() if same_place(t) and t.status == "pending"
        ]
        earliest = min(pending, default=None)
        for task in list(self._db.tasks.values()):
            if same_place(task) and task.status in OPEN_TASKS:
                self._db.tasks[task.id] = msgspec.structs.replace(task, due_at=earliest)

    async def counted(self, instance_id: str) -> list[dict[str, Any]]:
        return [
            dict(e.after)
            for e in self._db.audit
            if (e.object_type, e.object_id, e.action)
            == ("workflow_instance", instance_id, COUNTED_ACTION)
            and e.after
        ]


class StoredCalendar(msgspec.Struct, frozen=True, kw_only=True):
    spec: CalendarSpec
    created_at: datetime
    created_by: str
