"""The relay: delivers committed outbox rows to a broker, at least once.

A row is published first and marked sent afterwards; a relay killed in between publishes it
again on its next pass, and consumers absorb the duplicate (a step run can be claimed once).
Several relays may run at once: on PostgreSQL each takes rows with ``FOR UPDATE SKIP LOCKED``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Any, Protocol

import structlog

from contracts.kernel import Clock
from services.workflow.runtime.kernel.naming import routed_queue, step_topic
from services.workflow.runtime.ports import OutboxMessage, UnitOfWork

log = structlog.get_logger("tramita.relay")


class Broker(Protocol):
    async def publish(self, message: OutboxMessage) -> None: ...


class Relay:
    def __init__(
        self,
        uow_factory: Callable[[], UnitOfWork],
        broker: Broker,
        clock: Clock,
        *,
        batch: int = 200,
        after_publish: Callable[[int], None] | None = None,
    ) -> None:
        self._uow = uow_factory
        self._broker = broker
        self._clock = clock
        self.batch = batch
        self._after_publish = after_publish
        self._batches = 0

    async def pump(self) -> int:
        """Publish one batch of due rows; returns how many were published."""
        async with self._uow() as uow:
            due = await uow.outbox.due(self._clock.now(), self.batch)
            many = getattr(self._broker, "publish_many", None)
            if many is not None:
                await many(due)
            else:
                for message in due:
                    await self._broker.publish(message)
            if due:
                self._batches += 1
                if self._after_publish is not None:
                    self._after_publish(self._batches)  # fault injection point (tests only)
            await uow.outbox.mark_sent([m.id for m in due], self._clock.now())
            await uow.commit()
        return len(due)


class Sweeper:
    """Re-delivers steps whose worker died (lease expired) or whose message the broker lost;
    ``also`` are further sweeps of the same kind (long operations whose runner died)."""

    def __init__(
        self,
        uow_factory: Callable[[], UnitOfWork],
        clock: Clock,
        *,
        recover: Callable[[str], Awaitable[Any]],
        stranded_after: timedelta = timedelta(seconds=60),
        batch: int = 500,
        also: Sequence[Callable[[], Awaitable[int]]] = (),
        pools: frozenset[str] = frozenset(),
    ) -> None:
        self._also = tuple(also)
        self._pools = pools
        """Tenants with worker pools of their own: a re-sent step goes where a new one would."""
        self._uow = uow_factory
        self._clock = clock
        self._recover = recover
        self._stranded_after = stranded_after
        self._batch = batch

    async def sweep(self) -> int:
        now = self._clock.now()
        async with self._uow() as uow:
            expired = await uow.steps.expired_leases(now, self._batch)
            stranded = await uow.steps.stranded(now - self._stranded_after, self._batch)
            for step in stranded:
                queue = step.queue
                if self._pools:  # only then does the case's tenant matter
                    record = await uow.instances.get(step.instance_id)
                    tenant = "" if record is None else record.tenant
                    queue = routed_queue(step.queue, tenant, self._pools)
                await uow.outbox.enqueue(
                    step_topic(queue), step.id, {"step_run_id": step.id}, available_at=now
                )
            await uow.commit()
        for step in expired:
            await self._recover(step.id)
        if expired or stranded:
            log.warning("steps_redelivered", expired=len(expired), stranded=len(stranded))
        others = 0
        for sweep in self._also:  # e.g. long operations whose runner died
            others += await sweep()
        return len(expired) + len(stranded) + others


Handler = Callable[[OutboxMessage], Awaitable[Any]]
