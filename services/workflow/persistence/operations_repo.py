"""SQL of long operations (``runtime.ports.operations.OperationStore``): ``uow.operations``.

On the unit of work's connection, so the row of an item can commit in the same
transaction as the item's effect (a migrated instance and its item row, or neither). Every
change of the operation row is one conditional ``UPDATE`` (on its status and its runner):
a cancelled operation or a lease taken over matches nothing, and the caller hears ``False``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from services.workflow.persistence.tables_operations import operation_items, operations
from services.workflow.persistence.write_buffer import WriteBuffer
from services.workflow.runtime.ports.operations import ACTIVE, Operation, OperationItem

_O = operations.c
_I = operation_items.c


def _row(cls: type[Any], row: Any) -> Any:
    return msgspec.convert({str(k): v for k, v in row._mapping.items()}, cls)


class SqlOperationStore:
    def __init__(self, db: WriteBuffer) -> None:
        self._db = db

    @property
    def _conn(self) -> AsyncConnection:
        """The unit of work's connection (it sends held-back writes first)."""
        return self._db.conn

    async def add(self, operation: Operation) -> Operation | None:
        if operation.dedup_key is not None:
            running = await self._active_with(operation.tenant, operation.dedup_key)
            if running is not None:
                return running
        try:
            # A savepoint: two submissions at once meet at the unique index, and the loser
            # reads the winner's row instead of failing its transaction.
            async with self._conn.begin_nested():
                await self._conn.execute(
                    operations.insert().values(**msgspec.structs.asdict(operation))
                )
        except IntegrityError:
            if operation.dedup_key is None:
                raise
            running = await self._active_with(operation.tenant, operation.dedup_key)
            if running is None:
                raise
            return running
        return None

    async def _active_with(self, tenant: str, key: str) -> Operation | None:
        query = sa.select(operations).where(
            _O.tenant == tenant, _O.dedup_key == key, _O.status.in_(ACTIVE)
        )
        row = (await self._conn.execute(query)).first()
        return None if row is None else _row(Operation, row)

    async def get(self, operation_id: str) -> Operation | None:
        row = (await self._conn.execute(sa.select(operations).where(_O.id == operation_id))).first()
        return None if row is None else _row(Operation, row)

    async def recent(self, tenant: str, *, started_by: str | None, limit: int) -> list[Operation]:
        query = sa.select(operations).where(_O.tenant == tenant)
        if started_by is not None:
            query = query.where(_O.started_by == started_by)
        query = query.order_by(_O.created_at.desc(), _O.id.desc()).limit(limit)
        return [_row(Operation, r) for r in await self._conn.execute(query)]

    async def items(self, operation_id: str, *, refused_only: bool = False) -> list[OperationItem]:
        query = sa.select(_I.item_id, _I.position, _I.outcome, _I.code, _I.detail, _I.at).where(
            _I.operation_id == operation_id
        )
        if refused_only:
            query = query.where(_I.outcome == "refused")
        query = query.order_by(_I.position)
        return [_row(OperationItem, r) for r in await self._conn.execute(query)]

    async def handled_ids(self, operation_id: str) -> set[str]:
        query = sa.select(_I.item_id).where(_I.operation_id == operation_id)
        return {str(r[0]) for r in await self._conn.execute(query)}

    async def _update(self, where: Any, **values: Any) -> bool:
        result = await self._conn.execute(operations.update().where(where).values(**values))
        return bool(result.rowcount)

    async def claim(
        self, operation_id: str, runner: str, now: datetime, lease_until: datetime
    ) -> bool:
        free = sa.or_(_O.status == "queued", _O.runner.is_(None), _O.lease_until < now)
        return await self._update(
            sa.and_(_O.id == operation_id, _O.status.in_(ACTIVE), free),
            status="running",
            runner=runner,
            lease_until=lease_until,
            started_at=sa.func.coalesce(_O.started_at, now),
        )

    def _held(self, operation_id: str, runner: str) -> Any:
        return sa.and_(_O.id == operation_id, _O.status == "running", _O.runner == runner)

    async def renew(self, operation_id: str, runner: str, lease_until: datetime) -> bool:
        return await self._update(self._held(operation_id, runner), lease_until=lease_until)

    async def record(self, operation_id: str, item: OperationItem, *, runner: str | None) -> bool:
        exists = sa.select(_I.item_id).where(
            _I.operation_id == operation_id, _I.item_id == item.item_id
        )
        if (await self._conn.execute(exists)).first() is not None:
            return False
        counter = _O.done if item.outcome == "done" else _O.refused
        where = _O.id == operation_id if runner is None else self._held(operation_id, runner)
        if not await self._update(where, **{counter.key: counter + 1}):
            return False
        values = msgspec.structs.asdict(item)
        await self._conn.execute(
            operation_items.insert().values(operation_id=operation_id, **values)
        )
        return True

    async def release(self, operation_id: str, runner: str) -> None:
        await self._update(self._held(operation_id, runner), runner=None, lease_until=None)

    async def finish(
        self, operation_id: str, runner: str, status: str, now: datetime, error: str | None
    ) -> bool:
        return await self._update(
            self._held(operation_id, runner),
            status=status,
            error=error,
            finished_at=now,
            runner=None,
            lease_until=None,
        )

    async def cancel(self, operation_id: str, *, actor: str, reason: str, now: datetime) -> bool:
        return await self._update(
            sa.and_(_O.id == operation_id, _O.status.in_(ACTIVE)),
            status="cancelled",
            cancelled_by=actor,
            cancel_reason=reason,
            finished_at=now,
            runner=None,
            lease_until=None,
        )

    async def touch(self, operation_id: str, until: datetime) -> None:
        await self._update(
            sa.and_(_O.id == operation_id, _O.status.in_(ACTIVE)), runner=None, lease_until=until
        )

    async def stranded(self, now: datetime, queued_before: datetime, limit: int) -> list[str]:
        query = (
            sa.select(_O.id)
            .where(
                sa.or_(
                    sa.and_(_O.status == "running", _O.lease_until < now),
                    sa.and_(
                        _O.status == "queued",
                        _O.created_at < queued_before,
                        sa.or_(_O.lease_until.is_(None), _O.lease_until < now),
                    ),
                )
            )
            .order_by(_O.created_at)
            .limit(limit)
        )
        return [str(r[0]) for r in await self._conn.execute(query)]
