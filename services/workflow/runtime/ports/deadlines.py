"""What the deadline service exchanges with storage, and its errors (split from deadlines.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

import msgspec

from contracts.errors import Conflict, NotFound
from services.workflow.calendar import CalendarSpec, DeadlineEvent, DeadlineRule
from services.workflow.runtime.ports import TimerRecord


class DeadlineNotFound(NotFound):
    problem_type = "deadline-not-found"
    title = "Deadline not found"


class DeadlineExists(Conflict):
    problem_type = "deadline-exists"
    title = "The instance already has a deadline with this name"


class CalendarNotFound(NotFound):
    problem_type = "calendar-not-found"
    title = "Calendar not found"


class CalendarVersionConflict(Conflict):
    """A stored calendar version is immutable; versions follow each other without gaps."""

    problem_type = "calendar-version-conflict"
    title = "Calendar version conflict"


class CalendarVersionRow(msgspec.Struct, frozen=True, kw_only=True):
    """One stored calendar version as an admin lists it."""

    key: str
    version: int
    checksum: str
    created_at: datetime
    created_by: str


class DeadlineRow(msgspec.Struct, frozen=True, kw_only=True):
    """A ``workflow_deadlines`` row: the event log plus the cached result."""

    instance_id: str
    name: str
    rule: DeadlineRule
    calendar_key: str
    calendar_version: int
    calendar_checksum: str
    started_at: datetime
    due_at: datetime | None
    status: str
    events: tuple[DeadlineEvent, ...]
    updated_at: datetime


class DeadlineView(msgspec.Struct, frozen=True, kw_only=True):
    """What callers see: the state, the calendar version used and the units left now."""

    instance_id: str
    name: str
    rule: DeadlineRule
    status: str
    started_at: datetime
    due_at: datetime | None
    calendar_key: str
    calendar_version: int
    calendar_checksum: str
    extensions_used: int
    remaining_units: int
    overdue: bool
    events: tuple[DeadlineEvent, ...]


class DeadlineStore(Protocol):
    """Persistence of calendars and deadlines on one unit of work (``SqlDeadlineRepo``)."""

    async def calendar(self, key: str, version: int) -> CalendarSpec | None: ...

    async def latest_calendar(self, key: str) -> CalendarSpec | None: ...

    async def add_calendar(self, spec: CalendarSpec, *, at: datetime, by: str) -> bool: ...

    async def latest_calendars(self) -> list[CalendarSpec]: ...

    async def calendar_versions(self, key: str) -> list[CalendarVersionRow]: ...

    async def deadline(self, instance_id: str, name: str) -> DeadlineRow | None: ...

    async def deadlines(self, instance_id: str) -> list[DeadlineRow]: ...

    async def add_deadline(self, row: DeadlineRow) -> None: ...

    async def update_deadline(self, row: DeadlineRow) -> None: ...

    async def replace_deadline(self, row: DeadlineRow) -> None: ...

    async def stale_on(self, calendar_key: str, version: int) -> list[tuple[str, str]]: ...

    async def bound_timer(self, instance_id: str, timer_id: str) -> TimerRecord | None: ...

    async def move_timer(self, timer: TimerRecord, *, status: str, due_at: datetime) -> None: ...

    async def counted(self, instance_id: str) -> list[dict[str, Any]]: ...
