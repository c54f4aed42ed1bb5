"""Workflow instances: their rows, protocol numbers, and the open work an ending cancels."""

from __future__ import annotations

from datetime import datetime

import msgspec
import sqlalchemy as sa

from contracts.errors import ConcurrentModification
from services.workflow.persistence import statements as q
from services.workflow.persistence import tables as t
from services.workflow.persistence.access_repo import seen_by
from services.workflow.persistence.joined_writes import write_per_instance
from services.workflow.persistence.repositories import struct, structs
from services.workflow.persistence.write_buffer import Held, WriteBuffer
from services.workflow.runtime.kernel.state import TERMINAL
from services.workflow.runtime.ports import InstanceRecord
from services.workflow.runtime.ports.access import Viewer

DECIDED_COLUMNS = (
    "status",
    "current_nodes",
    "state",
    "context",
    "due_at",
    "updated_at",
    "ended_at",
    "row_version",
)
"""What ``Instances.update`` writes; the rest of a row is fixed once it is added."""


class SqlInstances:
    """Implements ``runtime.ports.Instances``."""

    def __init__(self, db: WriteBuffer) -> None:
        self._db = db

    async def next_protocol_number(self, series: str, year: int, *, tenant: str) -> int:
        """Allocate the next number of ``tenant``'s protocol series in this transaction (no gaps).

        One atomic upsert: concurrent first starts of a series cannot both insert, and the row
        stays locked until commit, so numbers follow commit order.
        """
        statement = q.NEXT_PROTOCOL_NUMBER[self._db.dialect.name]
        parameters = {"b_tenant": tenant, "b_prefix": series, "b_year": year}
        if self._db.hold:
            rows = await self._db.begin_with(statement, parameters, t.protocol_counters)
            if rows is not None:
                return int(rows[0][0])
        found = await self._db.via(t.protocol_counters).execute(statement, parameters)
        return int(found.scalar_one())

    def _seen(self, record: InstanceRecord | None) -> InstanceRecord | None:
        """Remember the case's tenant: the transaction's audit entries about it go there."""
        if record is not None:
            self._db.tenants[record.id] = record.tenant
        return record

    async def add(self, record: InstanceRecord) -> None:
        self._seen(record)
        await self._db.write(q.INSERT_INSTANCE, msgspec.structs.asdict(record))

    async def lock(self, instance_id: str) -> InstanceRecord | None:
        # Held writes to other tables (a finished step's close) wait: the instance row is
        # locked first (see ``WriteBuffer.flush``).
        query = self._db.via(t.instances).execute(q.LOCK_INSTANCE, {"b_id": instance_id})
        row = (await query).first()
        return self._seen(None if row is None else struct(InstanceRecord, row))

    async def lock_many(self, instance_ids: list[str]) -> dict[str, InstanceRecord]:
        if not instance_ids:
            return {}
        statement = q.LOCK_INSTANCES[self._db.dialect.name]
        result = await self._db.via(t.instances).execute(statement, {"b_ids": sorted(instance_ids)})
        found = {r.id: r for r in structs(InstanceRecord, result)}
        for record in found.values():
            self._seen(record)
        return found

    async def get(self, instance_id: str) -> InstanceRecord | None:
        row = (await self._db.read(q.GET_INSTANCE, {"b_id": instance_id})).first()
        return self._seen(None if row is None else struct(InstanceRecord, row))

    async def find_by_protocol(self, protocol: str) -> InstanceRecord | None:
        row = (
            await self._db.conn.execute(
                sa.select(t.instances).where(t.instances.c.protocol == protocol)
            )
        ).first()
        return self._seen(None if row is None else struct(InstanceRecord, row))

    async def update(self, record: InstanceRecord, *, expected_version: int) -> None:
        # Only the columns a decision or a moved deadline changes are written (the SET list
        # follows the parameters): a timer firing renders and sends 8 values, not 19.
        self._seen(record)
        params = {c: getattr(record, c) for c in DECIDED_COLUMNS}
        params["b_id"] = record.id
        params["b_expected"] = expected_version
        if self._db.hold and not self._db.instance_insert_held:
            # Checked on the server when it is sent (with the COMMIT, usually).
            self._db.held.append(Held(q.UPDATE_INSTANCE_CHECKED, params, record.id))
            return
        result = await self._db.conn.execute(q.UPDATE_INSTANCE, params)
        if result.rowcount != 1:
            raise ConcurrentModification(
                "the instance changed since it was read",
                instance_id=record.id,
                expected_version=expected_version,
            )

    async def repin(self, instance_id: str, *, version_id: str, definition_version: int) -> None:
        params = {
            "version_id": version_id,
            "definition_version": definition_version,
            "b_id": instance_id,
        }
        await self._db.write(q.REPIN_INSTANCE, params)

    async def cancel_open_work(self, instance_id: str, now: datetime) -> None:
        # Held back on PostgreSQL like the inserts: sent in order with them, so a step run
        # scheduled by the same decision is cancelled too.
        # A batch of ending cases (the tick's) sends one statement per table.
        values = {"b_now": now}
        for one, many in (
            (q.CANCEL_OPEN_STEP_RUNS, q.CANCEL_OPEN_STEP_RUNS_OF),
            (q.CANCEL_OPEN_TASKS, q.CANCEL_OPEN_TASKS_OF),
        ):
            await write_per_instance(self._db, one, many, instance_id, values)

    async def in_flight_on(
        self, version_id: str, *, seen: tuple[Viewer, datetime] | None = None
    ) -> list[str]:
        c = t.instances.c
        visible = [] if seen is None else [seen_by(*seen)]
        rows = await self._db.conn.execute(
            sa.select(c.id)
            .where(c.version_id == version_id, c.status.not_in(sorted(TERMINAL)), *visible)
            .order_by(c.started_at, c.id)
        )
        return [r.id for r in rows]
