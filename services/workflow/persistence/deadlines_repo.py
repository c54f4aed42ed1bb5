"""SQL for calendars and legal deadlines: ``uow.deadlines``, on the unit of work's connection.

Calendar versions are inserted with ``ON CONFLICT DO NOTHING`` so two processes publishing the
same version at boot cannot fail each other; the caller compares checksums to tell "already
there" from "someone stored a different spec under this version".
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from core.tables import audit_log
from services.workflow.calendar import CalendarSpec
from services.workflow.persistence import statements as q
from services.workflow.persistence import tables as t
from services.workflow.persistence import tables_deadlines as d
from services.workflow.persistence.write_buffer import WriteBuffer
from services.workflow.runtime.ports import TimerRecord
from services.workflow.runtime.ports.deadlines import CalendarVersionRow, DeadlineRow
from services.workflow.runtime.services.legal_time import COUNTED_ACTION

# A pending timer counts towards the instance's due date; a suspended one waits for resume.
BOUND_TIMER_STATUSES = ("pending", "suspended")


def _row(row: Any) -> DeadlineRow:
    return msgspec.convert({str(k): v for k, v in row._mapping.items()}, DeadlineRow)


def _values(row: DeadlineRow) -> dict[str, Any]:
    """Column values: JSON for the rule and the events, real datetimes for the rest."""
    values = msgspec.structs.asdict(row)
    values["rule"] = msgspec.to_builtins(row.rule)
    values["events"] = msgspec.to_builtins(row.events)
    return values


class SqlDeadlineRepo:
    """Reads and writes ``workflow_calendars`` and ``workflow_deadlines`` on one connection."""

    def __init__(self, db: WriteBuffer) -> None:
        self._db = db

    @property
    def conn(self) -> AsyncConnection:
        """The unit of work's connection (it sends held-back writes first)."""
        return self._db.conn

    # --- calendars ----------------------------------------------------------------------------

    async def calendar(self, key: str, version: int) -> CalendarSpec | None:
        c = d.calendars.c
        spec = (
            await self.conn.execute(sa.select(c.spec).where(c.key == key, c.version == version))
        ).scalar()
        return None if spec is None else msgspec.convert(spec, CalendarSpec)

    async def latest_calendar(self, key: str) -> CalendarSpec | None:
        c = d.calendars.c
        spec = (
            await self.conn.execute(
                sa.select(c.spec).where(c.key == key).order_by(c.version.desc()).limit(1)
            )
        ).scalar()
        return None if spec is None else msgspec.convert(spec, CalendarSpec)

    async def add_calendar(self, spec: CalendarSpec, *, at: datetime, by: str) -> bool:
        """Insert a version; False if that (key, version) was already stored."""
        values = {
            "key": spec.key,
            "version": spec.version,
            "spec": msgspec.to_builtins(spec),
            "checksum": spec.checksum,
            "created_at": at,
            "created_by": by,
        }
        insert = pg_insert if self.conn.dialect.name == "postgresql" else sqlite_insert
        statement = (
            insert(d.calendars)
            .values(**values)
            .on_conflict_do_nothing()
            .returning(d.calendars.c.version)
        )
        return (await self.conn.execute(statement)).first() is not None

    async def latest_calendars(self) -> list[CalendarSpec]:
        """The newest version of every calendar key, by key."""
        c = d.calendars.c
        newest = (
            sa.select(c.key, sa.func.max(c.version).label("version")).group_by(c.key).subquery()
        )
        rows = await self.conn.execute(
            sa.select(c.spec)
            .join(newest, sa.and_(newest.c.key == c.key, newest.c.version == c.version))
            .order_by(c.key)
        )
        return [msgspec.convert(r.spec, CalendarSpec) for r in rows]

    async def calendar_versions(self, key: str) -> list[CalendarVersionRow]:
        """Every stored version of ``key``, newest first."""
        c = d.calendars.c
        rows = await self.conn.execute(
            sa.select(c.key, c.version, c.checksum, c.created_at, c.created_by)
            .where(c.key == key)
            .order_by(c.version.desc())
        )
        return [
            CalendarVersionRow(
                key=r.key,
                version=r.version,
                checksum=r.checksum,
                created_at=r.created_at,
                created_by=r.created_by,
            )
            for r in rows
        ]

    # --- deadlines ----------------------------------------------------------------------------

    async def deadline(self, instance_id: str, name: str) -> DeadlineRow | None:
        c = d.deadlines.c
        row = (
            await self.conn.execute(
                sa.select(d.deadlines).where(c.instance_id == instance_id, c.name == name)
            )
        ).first()
        return None if row is None else _row(row)

    async def deadlines(self, instance_id: str) -> list[DeadlineRow]:
        c = d.deadlines.c
        rows = await self.conn.execute(
            sa.select(d.deadlines).where(c.instance_id == instance_id).order_by(c.name)
        )
        return [_row(r) for r in rows]

    async def add_deadline(self, row: DeadlineRow) -> None:
        await self.conn.execute(d.deadlines.insert().values(**_values(row)))

    async def update_deadline(self, row: DeadlineRow) -> None:
        values = _values(row)
        for key in ("instance_id", "name", "started_at"):
            values.pop(key)
        c = d.deadlines.c
        await self.conn.execute(
            d.deadlines.update()
            .where(c.instance_id == row.instance_id, c.name == row.name)
            .values(**values)
        )

    async def replace_deadline(self, row: DeadlineRow) -> None:
        """A new timer of the same name took over: the row starts again (``started_at`` too)."""
        values = _values(row)
        for key in ("instance_id", "name"):
            values.pop(key)
        c = d.deadlines.c
        await self.conn.execute(
            d.deadlines.update()
            .where(c.instance_id == row.instance_id, c.name == row.name)
            .values(**values)
        )

    async def stale_on(self, calendar_key: str, version: int) -> list[tuple[str, str]]:
        """(instance, name) of the deadlines of running instances counting with an older
        version of the calendar (an ended instance's deadline is no longer tracked)."""
        c = d.deadlines.c
        i = t.instances.c
        rows = await self.conn.execute(
            sa.select(c.instance_id, c.name)
            .join(t.instances, i.id == c.instance_id)
            .where(
                c.calendar_key == calendar_key,
                c.calendar_version < version,
                i.ended_at.is_(None),
            )
            .order_by(c.instance_id, c.name)
        )
        return [(str(r.instance_id), str(r.name)) for r in rows]

    # --- the timer bound to a deadline -------------------------------------------------------

    async def bound_timer(self, instance_id: str, timer_id: str) -> TimerRecord | None:
        """The latest live timer named like the deadline (pending, or suspended by it)."""
        c = t.timers.c
        row = (
            await self.conn.execute(
                sa.select(t.timers)
                .where(
                    c.instance_id == instance_id,
                    c.timer_id == timer_id,
                    c.status.in_(BOUND_TIMER_STATUSES),
                )
                .order_by(c.attempt_group.desc(), c.due_at.desc())
                .limit(1)
            )
        ).first()
        if row is None:
            return None
        return msgspec.convert({str(k): v for k, v in row._mapping.items()}, TimerRecord)

    async def move_timer(self, timer: TimerRecord, *, status: str, due_at: datetime) -> None:
        """Set the timer's status and due date, and the SLA of the task it bounds.

        A task's ``due_at`` is the earliest pending timer on it; with none pending (the
        deadline is suspended) the task has no due date until the clock restarts.
        """
        c = t.timers.c
        await self.conn.execute(
            t.timers.update().where(c.id == timer.id).values(status=status, due_at=due_at)
        )
        same_place = (
            c.instance_id == timer.instance_id,
            c.token_id == timer.token_id,
            c.node_id == timer.node_id,
            c.attempt_group == timer.attempt_group,
        )
        earliest = (
            sa.select(sa.func.min(c.due_at))
            .where(*same_place, c.status == "pending")
            .scalar_subquery()
        )
        k = t.tasks.c
        await self.conn.execute(
            t.tasks.update()
            .where(
                k.instance_id == timer.instance_id,
                k.token_id == timer.token_id,
                k.node_id == timer.node_id,
                k.attempt_group == timer.attempt_group,
                k.status.in_(q.OPEN_TASK_STATUSES),
            )
            .values(due_at=earliest)
        )

    async def counted(self, instance_id: str) -> list[dict[str, Any]]:
        """Every legal deadline counted for the instance's timers (what the audit stored), in
        the order they were counted."""
        a = audit_log.c
        rows = await self.conn.execute(
            sa.select(a.after)
            .where(
                a.object_type == "workflow_instance",
                a.object_id == instance_id,
                a.action == COUNTED_ACTION,
            )
            .order_by(a.seq)
        )
        return [dict(row.after) for row in rows if row.after]
