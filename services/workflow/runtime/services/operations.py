"""Long operations (batch jobs): a migration of many instances or a bulk task action, run in
the background with its progress kept in the database.

``start`` writes the operation, its audit entry and an outbox message (topic
``OPERATION_TOPIC``) in one unit of work; the message travels like any other (in-process
delivery on the embedded defaults, relay → Redis → worker on the ``events`` queue in
production) and the dispatcher hands it to ``run``. A runner takes the operation under a lease,
then handles the items not yet recorded, each in its own unit of work, so a refused item never
undoes the others and progress is committed as it goes. An item's effect is idempotent by its
key: a migrated instance and its item row commit in the same transaction; a task action carries
the idempotency key ``op:<operation>:<task>``, so running it again (a runner that died between
the action and its row) replays the stored answer instead of acting twice. A runner that dies
leaves its lease to expire; the sweep sends the operation again and the next runner continues
from the items without a row. A run handles at most ``chunk`` items and then hands the rest on
with a new message, so one delivery never outlives the broker's job timeout, and a cancelled
operation stops before its next item. What one item does, per kind, is in ``operation_steps``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

import msgspec
import structlog

from contracts.errors import (
    BadRequest,
    InvalidTransition,
    NotFound,
    ServiceUnavailable,
    TramitaError,
)
from contracts.kernel import Actor, AuditEntry, Clock, IdGen
from services.workflow.definition.messages import N_
from services.workflow.runtime.kernel.naming import OPERATION_TOPIC
from services.workflow.runtime.ports import UnitOfWork
from services.workflow.runtime.ports.access import Viewer
from services.workflow.runtime.ports.operations import (
    OPERATION_KINDS,
    PARAMS_FORMAT,
    AbandonLetter,
    Operation,
    OperationItem,
    OperationStore,
)
from services.workflow.runtime.services.human_tasks import TaskService
from services.workflow.runtime.services.migration import Migrator
from services.workflow.runtime.services.operation_steps import OperationSteps

log = structlog.get_logger("tramita.operations")

MAX_ITEMS = 10_000
MAX_REASON = 500


def dedup_key(kind: str, items: Sequence[str], actor: Actor, params: dict[str, Any]) -> str:
    """What an operation does and who asks: the kind, its parameters (the target queue or
    person, the versions and mapping), the items in sorted order and the actor. The same
    submission made twice (a double click, a command run again) has the same key."""
    what = {
        "kind": kind,
        "actor": [actor.kind, actor.id],
        "items": sorted(str(i) for i in items),
        "params": params,
    }
    encoded = json.dumps(what, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(encoded.encode()).hexdigest()


class OperationService:
    """Starts, runs, cancels and reads operations; built once by the composition root."""

    def __init__(
        self,
        *,
        uow_factory: Callable[[], UnitOfWork],
        store: Callable[[UnitOfWork], OperationStore],
        clock: Clock,
        ids: IdGen,
        tenant: str,
        tasks: TaskService,
        migrator: Migrator,
        wakeup: Callable[[], None],
        runner_name: str,
        lease: timedelta = timedelta(seconds=60),
        chunk: int = 50,
        threshold: int = 50,
        always: bool = False,
        abandon_letter: AbandonLetter | None = None,
    ) -> None:
        self._uow = uow_factory
        self._store = store
        self._clock = clock
        self._ids = ids
        self._tenant = tenant
        self._wakeup = wakeup
        self._runner_name = runner_name
        self.lease = lease
        self.chunk = max(1, chunk)
        self.threshold = threshold
        self.always = always
        self._abandon_letter = abandon_letter
        self._steps = OperationSteps(
            uow_factory=uow_factory,
            store=store,
            clock=clock,
            tasks=tasks,
            migrator=migrator,
            abandon_letter=abandon_letter,
        )

    def in_background(self, count: int) -> bool:
        """Whether pages run a selection of ``count`` items as an operation (past the
        threshold, or always when so configured) rather than inside the request."""
        return self.always or count > self.threshold

    # --- starting and reading ------------------------------------------------------------------

    async def start(
        self,
        kind: str,
        items: Sequence[str],
        *,
        actor: Actor,
        reason: str | None = None,
        params: dict[str, Any] | None = None,
        viewer: Viewer | None = None,
    ) -> Operation:
        """Record the operation and hand it to a runner (after the commit). While an operation
        with the same :func:`dedup_key` is queued or running, that one is returned and nothing
        new starts. With ``viewer`` (the person who starts it), an item of a case they may not
        see is refused exactly like an unknown one (``Operation.viewer``)."""
        if kind not in OPERATION_KINDS:
            raise BadRequest("unknown operation kind", code="invalid_kind", kind=kind)
        unique = list(dict.fromkeys(str(i) for i in items))
        if not unique or len(unique) > MAX_ITEMS:
            raise BadRequest("an operation needs 1 to 10000 items", code="invalid_items")
        if kind == "dead_letter_abandon" and not (reason or "").strip():
            raise BadRequest("giving up dead letters needs a reason", code="missing_reason")
        now = self._clock.now()
        own = dict(params or {})
        if viewer is not None:
            own["seen_as"] = msgspec.to_builtins(viewer)
        operation = Operation(
            id=str(self._ids.new_id()),
            tenant=self._tenant,
            kind=kind,
            started_by=actor.id,
            started_by_kind=actor.kind,
            reason=(reason or None) and str(reason)[:MAX_REASON],
            params={**own, "format": PARAMS_FORMAT, "items": unique},
            total=len(unique),
            created_at=now,
            dedup_key=dedup_key(kind, unique, actor, own),
        )
        async with self._uow() as uow:
            running = await self._store(uow).add(operation)
            if running is not None:
                log.info("operation_deduplicated", operation_id=running.id, kind=kind)
                return running
            await uow.audit.append(
                AuditEntry(
                    action="workflow.operation.started",
                    object_type="workflow_operation",
                    object_id=operation.id,
                    actor=actor,
                    reason=operation.reason,
                    after={"kind": kind, "total": operation.total},
                )
            )
            await uow.outbox.enqueue(
                OPERATION_TOPIC, operation.id, {"operation_id": operation.id}, available_at=now
            )
            await uow.commit()
        self._wakeup()
        return operation

    async def get(self, operation_id: str) -> Operation:
        async with self._uow() as uow:
            found = await self._store(uow).get(operation_id)
        if found is None or found.tenant != self._tenant:
            raise NotFound(N_("unknown operation"), operation_id=operation_id)
        return found

    async def items(self, operation_id: str, *, refused_only: bool = False) -> list[OperationItem]:
        async with self._uow() as uow:
            return await self._store(uow).items(operation_id, refused_only=refused_only)

    async def recent(self, *, started_by: str | None, limit: int = 50) -> list[Operation]:
        """Newest first; only ``started_by``'s when given."""
        async with self._uow() as uow:
            return await self._store(uow).recent(self._tenant, started_by=started_by, limit=limit)

    async def cancel(self, operation_id: str, *, actor: Actor, reason: str) -> Operation:
        """Stop a queued or running operation before its next item; the items already handled
        stay as they are. Audited with the reason."""
        if not reason.strip():
            raise BadRequest("a cancellation needs a reason", code="missing_reason")
        now = self._clock.now()
        async with self._uow() as uow:
            store = self._store(uow)
            before = await store.get(operation_id)
            if before is None or before.tenant != self._tenant:
                raise NotFound(N_("unknown operation"), operation_id=operation_id)
            if not await store.cancel(operation_id, actor=actor.id, reason=reason, now=now):
                raise InvalidTransition(
                    "the operation is no longer running",
                    operation_id=operation_id,
                    code="operation_over",
                )
            await uow.audit.append(
                AuditEntry(
                    action="workflow.operation.cancelled",
                    object_type="workflow_operation",
                    object_id=operation_id,
                    actor=actor,
                    reason=reason,
                    before={"status": before.status, "done": before.done},
                    after={"status": "cancelled"},
                )
            )
            await uow.commit()
        return await self.get(operation_id)

    async def abandon_letters_now(
        self,
        letter_ids: Sequence[str],
        *,
        actor: Actor,
        reason: str,
        viewer: Viewer | None = None,
    ) -> list[OperationItem]:
        """Give up each dead letter inside the caller's request, each in its own transaction
        (one refusal never undoes the others), answering one item per distinct letter in the
        order given, refused ones with the same codes a background run records; with
        ``viewer``, a letter of a case hidden from them is refused as an unknown letter. For
        selections up to the threshold; past it, ``start("dead_letter_abandon", ...)``."""
        abandon = self._abandon_letter
        if abandon is None:
            raise ServiceUnavailable("dead letters are not wired", port="abandon_letter")
        if not reason.strip():
            raise BadRequest("giving up dead letters needs a reason", code="missing_reason")

        async def nothing(_uow: UnitOfWork) -> None:
            return None

        items: list[OperationItem] = []
        for position, letter_id in enumerate(dict.fromkeys(str(i) for i in letter_ids)):
            try:
                await self._steps.refuse_hidden_letter(letter_id, viewer)
                await abandon(letter_id, actor=actor, reason=reason, before_commit=nothing)
                items.append(self._steps.item(letter_id, position, None, None))
            except TramitaError as exc:
                if exc.status >= 500:
                    raise
                items.append(self._steps.refused(letter_id, position, exc))
        return items

    # --- running -------------------------------------------------------------------------------

    async def run(self, operation_id: str, *, limit: int | None = None) -> str:
        """Handle up to ``chunk`` (or ``limit``) items of the operation; what happened, as a
        word for logs: ``finished``, ``continued``, ``paused`` (``limit`` reached: the lease is
        kept, as by a runner that died), ``stopped`` (cancelled or taken over), ``busy`` (held
        by a live runner, or over), ``failed``."""
        runner = f"{self._runner_name}:{self._ids.new_id()}"
        now = self._clock.now()
        async with self._uow() as uow:
            claimed = await self._store(uow).claim(operation_id, runner, now, now + self.lease)
            await uow.commit()
        if not claimed:
            return "busy"
        operation = await self.get(operation_id)
        try:
            one = await self._steps.for_operation(operation, runner)
        except TramitaError as exc:
            return await self._finish(operation_id, runner, "failed", exc.problem_type)
        except (KeyError, TypeError, ValueError):  # parameters no run can use: never retried
            return await self._finish(operation_id, runner, "failed", "invalid_parameters")
        async with self._uow() as uow:
            handled = await self._store(uow).handled_ids(operation_id)
        todo = [(n, i) for n, i in enumerate(operation.items) if i not in handled]
        budget = self.chunk if limit is None else limit
        for count, (position, item) in enumerate(todo):
            if count >= budget:
                return await self._pause(operation_id, runner, hand_on=limit is None)
            async with self._uow() as uow:
                held = await self._store(uow).renew(
                    operation_id, runner, self._clock.now() + self.lease
                )
                await uow.commit()
            if not held:
                return "stopped"
            try:
                await one(item, position)
            except TramitaError as exc:
                log.warning(
                    "operation_item_failed", operation_id=operation_id, problem=exc.problem_type
                )
                return await self._finish(operation_id, runner, "failed", exc.problem_type)
        return await self._finish(operation_id, runner, "finished", None)

    async def _pause(self, operation_id: str, runner: str, *, hand_on: bool) -> str:
        if not hand_on:
            return "paused"
        async with self._uow() as uow:
            await self._store(uow).release(operation_id, runner)
            await uow.outbox.enqueue(
                OPERATION_TOPIC,
                operation_id,
                {"operation_id": operation_id},
                available_at=self._clock.now(),
            )
            await uow.commit()
        self._wakeup()
        return "continued"

    async def _finish(self, operation_id: str, runner: str, status: str, error: str | None) -> str:
        async with self._uow() as uow:
            store = self._store(uow)
            ended = await store.finish(operation_id, runner, status, self._clock.now(), error)
            operation = await store.get(operation_id)
            if ended and operation is not None:
                await uow.audit.append(
                    AuditEntry(
                        action=f"workflow.operation.{status}",
                        object_type="workflow_operation",
                        object_id=operation_id,
                        actor=Actor.system("operations"),
                        after={
                            "status": status,
                            "done": operation.done,
                            "refused": operation.refused,
                            "error": error,
                        },
                    )
                )
            await uow.commit()
        return status if ended else "stopped"

    async def sweep(self, *, queued_for: timedelta = timedelta(seconds=60)) -> int:
        """Send again the operations whose runner died (lease expired) or whose message was
        lost (queued for ``queued_for`` without a runner)."""
        now = self._clock.now()
        async with self._uow() as uow:
            store = self._store(uow)
            stranded = await store.stranded(now, now - queued_for, 100)
            for operation_id in stranded:
                await store.touch(operation_id, now + self.lease)
                await uow.outbox.enqueue(
                    OPERATION_TOPIC, operation_id, {"operation_id": operation_id}, available_at=now
                )
            await uow.commit()
        if stranded:
            log.warning("operations_redelivered", count=len(stranded))
            self._wakeup()
        return len(stranded)
