"""The organisational-units store of the in-memory unit of work (``uow.units``), with the SQL
store's contracts (``persistence.units_repo.SqlUnitRepo``): units by key with their queues and
supervisors sorted, a queue in at most one unit, a second unit under a taken key refused."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from services.workflow.runtime.ports.units import UnitRecord
from tests.fakes.memory_human import DuplicateKey

if TYPE_CHECKING:
    from tests.fakes.memory_uow import MemoryDatabase, MemoryUnitOfWork


class MemoryUnits:
    def __init__(self, uow: MemoryUnitOfWork) -> None:
        self._uow = uow

    @property
    def _db(self) -> MemoryDatabase:
        return self._uow.working

    def _record(self, key: str) -> UnitRecord:
        return UnitRecord(
            key=key,
            name=self._db.units[key],
            queues=tuple(sorted(q for q, u in self._db.unit_queues.items() if u == key)),
            supervisors=tuple(sorted(p for u, p in self._db.supervisors if u == key)),
        )

    async def units(self) -> list[UnitRecord]:
        return [self._record(k) for k in sorted(self._db.units)]

    async def supervised_by(self, user_id: str) -> list[UnitRecord]:
        mine = {u for u, p in self._db.supervisors if p == user_id}
        return [self._record(k) for k in sorted(self._db.units) if k in mine]

    async def unit(self, key: str) -> UnitRecord | None:
        return self._record(key) if key in self._db.units else None

    async def queue_exists(self, queue: str) -> bool:
        return queue in self._db.queues

    async def queue_unit(self, queue: str) -> str | None:
        return self._db.unit_queues.get(queue)

    async def add_unit(self, key: str, name: str, now: datetime) -> None:
        if key in self._db.units:
            raise DuplicateKey(f"unit {key}")
        self._db.units[key] = name

    async def set_queue_unit(self, queue: str, unit: str, now: datetime) -> None:
        self._db.unit_queues[queue] = unit

    async def add_supervisor(self, unit: str, user_id: str, now: datetime) -> bool:
        if (unit, user_id) in self._db.supervisors:
            return False
        self._db.supervisors.add((unit, user_id))
        return True

    async def remove_supervisor(self, unit: str, user_id: str) -> bool:
        if (unit, user_id) not in self._db.supervisors:
            return False
        self._db.supervisors.discard((unit, user_id))
        return True
