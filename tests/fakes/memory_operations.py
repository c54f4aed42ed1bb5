"""The long-operations store of the in-memory unit of work (``uow.operations``), with the SQL
store's contracts (``persistence.operations_repo.SqlOperationStore``): one active operation per
deduplication key, every change of the operation conditional on its status and its runner (a
change that matches nothing answers False), an item recorded once."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

import msgspec

from services.workflow.runtime.ports.operations import ACTIVE, Operation, OperationItem

if TYPE_CHECKING:
    from tests.fakes.memory_uow import MemoryDatabase, MemoryUnitOfWork


class MemoryOperations:
    def __init__(self, uow: MemoryUnitOfWork) -> None:
        self._uow = uow

    @property
    def _db(self) -> MemoryDatabase:
        return self._uow.working

    def _set(self, operation: Operation, **values: Any) -> bool:
        self._db.operations[operation.id] = msgspec.structs.replace(operation, **values)
        return True

    def _held(self, operation_id: str, runner: str) -> Operation | None:
        found = self._db.operations.get(operation_id)
        if found is None or found.status != "running" or found.runner != runner:
            return None
        return found

    def _active(self, operation_id: str) -> Operation | None:
        found = self._db.operations.get(operation_id)
        return found if found is not None and found.status in ACTIVE else None

    async def add(self, operation: Operation) -> Operation | None:
        if operation.dedup_key is not None:
            for other in self._db.operations.values():
                same = (other.tenant, other.dedup_key) == (operation.tenant, operation.dedup_key)
                if same and other.status in ACTIVE:
                    return other
        self._db.operations[operation.id] = operation
        return None

    async def get(self, operation_id: str) -> Operation | None:
        return self._db.operations.get(operation_id)

    async def recent(self, tenant: str, *, started_by: str | None, limit: int) -> list[Operation]:
        found = [
            o
            for o in self._db.operations.values()
            if o.tenant == tenant and started_by in (None, o.started_by)
        ]
        return sorted(found, key=lambda o: (o.created_at, o.id), reverse=True)[:limit]

    async def items(self, operation_id: str, *, refused_only: bool = False) -> list[OperationItem]:
        found = [
            i
            for i in self._db.operation_items.get(operation_id, {}).values()
            if not refused_only or i.outcome == "refused"
        ]
        return sorted(found, key=lambda i: i.position)

    async def handled_ids(self, operation_id: str) -> set[str]:
        return set(self._db.operation_items.get(operation_id, {}))

    async def claim(
        self, operation_id: str, runner: str, now: datetime, lease_until: datetime
    ) -> bool:
        found = self._active(operation_id)
        if found is None:
            return False
        free = found.status == "queued" or found.runner is None
        if not free and not (found.lease_until is not None and found.lease_until < now):
            return False
        return self._set(
            found,
            status="running",
            runner=runner,
            lease_until=lease_until,
            started_at=found.started_at or now,
        )

    async def renew(self, operation_id: str, runner: str, lease_until: datetime) -> bool:
        found = self._held(operation_id, runner)
        return found is not None and self._set(found, lease_until=lease_until)

    async def record(self, operation_id: str, item: OperationItem, *, runner: str | None) -> bool:
        recorded = self._db.operation_items.setdefault(operation_id, {})
        if item.item_id in recorded:
            return False
        found = (
            self._db.operations.get(operation_id)
            if runner is None
            else self._held(operation_id, runner)
        )
        if found is None:
            return False
        if item.outcome == "done":
            self._set(found, done=found.done + 1)
        else:
            self._set(found, refused=found.refused + 1)
        recorded[item.item_id] = item
        return True

    async def release(self, operation_id: str, runner: str) -> None:
        found = self._held(operation_id, runner)
        if found is not None:
            self._set(found, runner=None, lease_until=None)

    async def finish(
        self, operation_id: str, runner: str, status: str, now: datetime, error: str | None
    ) -> bool:
        found = self._held(operation_id, runner)
        return found is not None and self._set(
            found, status=status, error=error, finished_at=now, runner=None, lease_until=None
        )

    async def cancel(self, operation_id: str, *, actor: str, reason: str, now: datetime) -> bool:
        found = self._active(operation_id)
        return found is not None and self._set(
            found,
            status="cancelled",
            cancelled_by=actor,
            cancel_reason=reason,
            finished_at=now,
            runner=None,
            lease_until=None,
        )

    async def touch(self, operation_id: str, until: datetime) -> None:
        found = self._active(operation_id)
        if found is not None:
            self._set(found, runner=None, lease_until=until)

    async def stranded(self, now: datetime, queued_before: datetime, limit: int) -> list[str]:
        def lost(o: Operation) -> bool:
            expired = o.lease_until is not None and o.lease_until < now
            if o.status == "running":
                return expired
            return (
                o.status == "queued"
                and o.created_at < queued_before
                and (o.lease_until is None or expired)
            )

        found = [o for o in self._db.operations.values() if lost(o)]
        return [o.id for o in sorted(found, key=lambda o: o.created_at)][:limit]
