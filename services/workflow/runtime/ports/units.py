"""Organisational units as storage keeps them: the record and the port (``uow.units``).

``persistence.units_repo.SqlUnitRepo`` implements :class:`UnitStore` on the unit of work's
transaction; ``runtime.services.units`` is what people do with units.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

import msgspec


class UnitRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A unit with its queues and supervisors (user ids), each sorted."""

    key: str
    name: str
    queues: tuple[str, ...] = ()
    supervisors: tuple[str, ...] = ()


class UnitStore(Protocol):
    """What units need from persistence (``persistence.units_repo.SqlUnitRepo``)."""

    async def units(self) -> list[UnitRecord]:
        """Every unit by key, with its queues and supervisors."""
        ...

    async def supervised_by(self, user_id: str) -> list[UnitRecord]:
        """The units ``user_id`` supervises, by key."""
        ...

    async def unit(self, key: str) -> UnitRecord | None: ...
    async def queue_exists(self, queue: str) -> bool: ...
    async def queue_unit(self, queue: str) -> str | None: ...
    async def add_unit(self, key: str, name: str, now: datetime) -> None: ...
    async def set_queue_unit(self, queue: str, unit: str, now: datetime) -> None: ...
    async def add_supervisor(self, unit: str, user_id: str, now: datetime) -> bool: ...
    async def remove_supervisor(self, unit: str, user_id: str) -> bool: ...
