"""SQL for organisational units (``runtime.ports.units.UnitStore``): ``uow.units``, on the unit
of work's connection, so a change commits or rolls back with its audit entry."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from services.workflow.persistence import tables_human as h
from services.workflow.persistence import tables_units as u
from services.workflow.persistence.write_buffer import WriteBuffer
from services.workflow.runtime.ports.units import UnitRecord


class SqlUnitRepo:
    def __init__(self, db: WriteBuffer) -> None:
        self._db = db

    @property
    def _conn(self) -> AsyncConnection:
        """The unit of work's connection (it sends held-back writes first)."""
        return self._db.conn

    async def _records(self, where: Any = None) -> list[UnitRecord]:
        query = sa.select(u.units.c.key, u.units.c.name).order_by(u.units.c.key)
        if where is not None:
            query = query.where(where)
        rows = list(await self._conn.execute(query))
        if not rows:
            return []
        keys = [r.key for r in rows]
        queues: dict[str, list[str]] = defaultdict(list)
        for r in await self._conn.execute(
            sa.select(u.unit_queues.c.unit, u.unit_queues.c.queue)
            .where(u.unit_queues.c.unit.in_(keys))
            .order_by(u.unit_queues.c.queue)
        ):
            queues[r.unit].append(r.queue)
        people: dict[str, list[str]] = defaultdict(list)
        s = u.unit_supervisors.c
        for r in await self._conn.execute(
            sa.select(s.unit, s.user_id).where(s.unit.in_(keys)).order_by(s.user_id)
        ):
            people[r.unit].append(r.user_id)
        return [
            UnitRecord(
                key=r.key,
                name=r.name,
                queues=tuple(queues[r.key]),
                supervisors=tuple(people[r.key]),
            )
            for r in rows
        ]

    async def units(self) -> list[UnitRecord]:
        return await self._records()

    async def supervised_by(self, user_id: str) -> list[UnitRecord]:
        s = u.unit_supervisors.c
        mine = sa.select(s.unit).where(s.user_id == user_id)
        return await self._records(u.units.c.key.in_(mine))

    async def unit(self, key: str) -> UnitRecord | None:
        found = await self._records(u.units.c.key == key)
        return found[0] if found else None

    async def queue_exists(self, queue: str) -> bool:
        row = (
            await self._conn.execute(sa.select(h.queues.c.key).where(h.queues.c.key == queue))
        ).first()
        return row is not None

    async def queue_unit(self, queue: str) -> str | None:
        c = u.unit_queues.c
        row = (await self._conn.execute(sa.select(c.unit).where(c.queue == queue))).first()
        return None if row is None else str(row.unit)

    async def add_unit(self, key: str, name: str, now: datetime) -> None:
        await self._conn.execute(u.units.insert().values(key=key, name=name, created_at=now))

    async def set_queue_unit(self, queue: str, unit: str, now: datetime) -> None:
        c = u.unit_queues.c
        await self._conn.execute(u.unit_queues.delete().where(c.queue == queue))
        await self._conn.execute(
            u.unit_queues.insert().values(queue=queue, unit=unit, assigned_at=now)
        )

    async def add_supervisor(self, unit: str, user_id: str, now: datetime) -> bool:
        s = u.unit_supervisors.c
        found = (
            await self._conn.execute(
                sa.select(s.user_id).where(s.unit == unit, s.user_id == user_id)
            )
        ).first()
        if found is not None:
            return False
        await self._conn.execute(
            u.unit_supervisors.insert().values(unit=unit, user_id=user_id, added_at=now)
        )
        return True

    async def remove_supervisor(self, unit: str, user_id: str) -> bool:
        s = u.unit_supervisors.c
        result = await self._conn.execute(
            u.unit_supervisors.delete().where(s.unit == unit, s.user_id == user_id)
        )
        return bool(result.rowcount)
