"""Step runs: the attempts of automatic steps, their leases, and what the sweepers look for."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
import sqlalchemy as sa

from contracts.kernel import Clock
from services.workflow.persistence import statements as q
from services.workflow.persistence import tables as t
from services.workflow.persistence.repositories import struct
from services.workflow.persistence.write_buffer import Held, WriteBuffer
from services.workflow.runtime.ports import InstanceRecord, LeaseLost, StepRunRecord


def _claim_values(
    owner: str,
    now: datetime,
    lease_until: datetime,
    input: dict[str, Any] | None,
    checkpoint: dict[str, Any] | None,
) -> dict[str, Any]:
    """What a claim writes on the step run it takes."""
    return {
        "status": "running",
        "lease_owner": owner,
        "lease_expires_at": lease_until,
        "started_at": now,
        "input": input,
        "checkpoint": checkpoint,
    }


class SqlStepRuns:
    """Implements ``runtime.ports.StepRuns``."""

    def __init__(self, db: WriteBuffer, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    async def add(self, record: StepRunRecord) -> None:
        await self._db.write(q.INSERT_STEP_RUN, msgspec.structs.asdict(record))

    async def get(self, step_run_id: str) -> StepRunRecord | None:
        row = (await self._db.conn.execute(q.GET_STEP_RUN, {"b_id": step_run_id})).first()
        return None if row is None else struct(StepRunRecord, row)

    async def get_with_instance(
        self, step_run_id: str
    ) -> tuple[StepRunRecord, InstanceRecord] | None:
        row = (await self._db.read(q.GET_STEP_RUN_AND_INSTANCE, {"b_id": step_run_id})).first()
        if row is None:
            return None
        values = row._mapping
        step = msgspec.convert({str(c.name): values[c] for c in t.step_runs.c}, StepRunRecord)
        instance = msgspec.convert({str(c.name): values[c] for c in t.instances.c}, InstanceRecord)
        return step, instance

    async def update(self, step_run_id: str, **values: Any) -> None:
        await self._db.conn.execute(q.UPDATE_STEP_RUN, {**values, "b_id": step_run_id})

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
        """Take the lease of a scheduled step. A running step is never taken over here: when its
        lease expires the sweeper closes that attempt and schedules the next one."""
        values = _claim_values(owner, now, lease_until, input, checkpoint)
        result = await self._db.conn.execute(
            q.CLAIM_STEP_RUN, {**values, "b_id": step_run_id, "b_now": now}
        )
        row = result.first()
        return None if row is None else struct(StepRunRecord, row)

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
        """On PostgreSQL the claim is held back, checked on the server (``ClaimLost`` when it is
        sent, with the COMMIT usually), and the claimed record is ``step`` with the values the
        claim writes; elsewhere it is ``claim``."""
        if not self._db.hold:
            return await self.claim(
                step.id,
                owner=owner,
                now=now,
                lease_until=lease_until,
                input=input,
                checkpoint=checkpoint,
            )
        if step.status != "scheduled":
            return None  # what the claim would find: a running step is never taken over
        values = _claim_values(owner, now, lease_until, input, checkpoint)
        self._db.held.append(
            Held(q.CLAIM_STEP_RUN_CHECKED, {**values, "b_id": step.id, "b_now": now})
        )
        return msgspec.structs.replace(step, **values)

    async def finish(self, step_run_id: str, *, owner: str, **values: Any) -> None:
        """Close a running step if ``owner`` still holds its lease; ``LeaseLost`` when it lost it
        (the sweeper took the attempt away), and the transaction's writes are then discarded.
        SQLite raises it here; on PostgreSQL the update is held back and checked on the server,
        so it is raised when the update is sent (with the COMMIT, usually)."""
        params = {**values, "b_id": step_run_id, "b_owner": owner}
        if self._db.hold:
            self._db.held.append(Held(q.FINISH_STEP_RUN_CHECKED, params))
            return
        result = await self._db.conn.execute(q.FINISH_STEP_RUN, params)
        if result.rowcount != 1:
            raise LeaseLost

    async def last_attempt(
        self, instance_id: str, node_id: str, kind: str, attempt_group: int
    ) -> int:
        params = {
            "b_instance": instance_id,
            "b_node": node_id,
            "b_kind": kind,
            "b_group": attempt_group,
        }
        value = (await self._db.conn.execute(q.LAST_ATTEMPT, params)).scalar()
        return int(value or 0)

    async def budget_start(
        self, instance_id: str, node_id: str, kind: str, attempt_group: int
    ) -> int:
        c, d = t.step_runs.c, t.dead_letters.c
        lettered = sa.select(d.step_run_id).where(d.instance_id == instance_id)
        query = sa.select(sa.func.max(c.attempt)).where(
            c.instance_id == instance_id,
            c.node_id == node_id,
            c.kind == kind,
            c.attempt_group == attempt_group,
            sa.or_(c.status == "rejected", c.id.in_(lettered)),
        )
        value = (await self._db.conn.execute(query)).scalar()
        return int(value or 0)

    async def last_checkpoint(
        self, instance_id: str, node_id: str, kind: str, attempt_group: int
    ) -> dict[str, Any] | None:
        c = t.step_runs.c
        row = (
            await self._db.conn.execute(
                sa.select(c.checkpoint)
                .where(
                    c.instance_id == instance_id,
                    c.node_id == node_id,
                    c.kind == kind,
                    c.attempt_group == attempt_group,
                    c.checkpoint.is_not(None),
                )
                .order_by(c.attempt.desc())
                .limit(1)
            )
        ).first()
        return None if row is None else dict(row.checkpoint)

    async def of(self, instance_id: str) -> list[StepRunRecord]:
        rows = await self._db.conn.execute(
            sa.select(t.step_runs)
            .where(t.step_runs.c.instance_id == instance_id)
            .order_by(t.step_runs.c.created_at, t.step_runs.c.id)
        )
        return [struct(StepRunRecord, r) for r in rows]

    async def cancel_open(self, instance_id: str, token_id: str | None) -> None:
        where = [
            t.step_runs.c.instance_id == instance_id,
            t.step_runs.c.status.in_(q.OPEN_STEP_STATUSES),
        ]
        if token_id is not None:
            where.append(t.step_runs.c.token_id == token_id)
        await self._db.conn.execute(
            t.step_runs.update()
            .where(*where)
            .values(status="cancelled", finished_at=self._clock.now())
        )

    async def expired_leases(self, now: datetime, limit: int) -> list[StepRunRecord]:
        c = t.step_runs.c
        rows = await self._db.conn.execute(
            sa.select(t.step_runs)
            .where(c.status == "running", c.lease_expires_at < now)
            .order_by(c.lease_expires_at)
            .limit(limit)
        )
        return [struct(StepRunRecord, r) for r in rows]

    async def stranded(self, before: datetime, limit: int) -> list[StepRunRecord]:
        """Scheduled steps, due before ``before``, whose message was already sent: the broker
        lost it (a Redis restart) or its consumer died before claiming."""
        c = t.step_runs.c
        o = t.outbox.c
        pending_message = sa.exists().where(o.key == sa.cast(c.id, sa.String), o.sent_at.is_(None))
        rows = await self._db.conn.execute(
            sa.select(t.step_runs)
            .where(c.status == "scheduled", c.available_at < before, ~pending_message)
            .order_by(c.available_at)
            .limit(limit)
        )
        return [struct(StepRunRecord, r) for r in rows]
