"""What one item of a long operation does, per kind (:class:`OperationSteps`).

A migration moves one instance, its item row committing in the migration's own transaction; a
dead letter is given up with the operation's reason, its item row committing with the abandon;
a bulk task action (claim, abandon, forward, assign) runs through the task service with the
idempotency key :func:`task_key`, so running it again replays the stored answer. An item the
domain refuses is recorded as refused with its code; a failure of the platform (status 500 and
up) stops the run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from contracts.errors import InvalidTransition, NotFound, ServiceUnavailable, TramitaError
from contracts.kernel import Clock
from services.workflow.definition.messages import N_
from services.workflow.runtime.kernel.migration_plan import InstancePlan, MigrationRequest
from services.workflow.runtime.ports import UnitOfWork
from services.workflow.runtime.ports.access import Viewer
from services.workflow.runtime.ports.operations import (
    AbandonLetter,
    Operation,
    OperationItem,
    OperationStore,
)
from services.workflow.runtime.services.access import can_see
from services.workflow.runtime.services.human_tasks import TaskService
from services.workflow.runtime.services.migration import Migrator, Prepared

ItemRun = Callable[[str, int], Awaitable[None]]
"""Handles one item (its id and its position in the operation)."""


def task_key(operation_id: str, task_id: str) -> str:
    """The idempotency key of one task action of an operation."""
    return f"op:{operation_id}:{task_id}"


class OperationSteps:
    """Builds, for one operation and runner, the function that handles one of its items, and
    the item rows it records."""

    def __init__(
        self,
        *,
        uow_factory: Callable[[], UnitOfWork],
        store: Callable[[UnitOfWork], OperationStore],
        clock: Clock,
        tasks: TaskService,
        migrator: Migrator,
        abandon_letter: AbandonLetter | None,
    ) -> None:
        self._uow = uow_factory
        self._store = store
        self._clock = clock
        self._tasks = tasks
        self._migrator = migrator
        self._abandon_letter = abandon_letter

    async def for_operation(self, operation: Operation, runner: str) -> ItemRun:
        """The item step of ``operation``'s kind, recording its rows as ``runner``."""
        if operation.kind == "migration":
            return await self._migration(operation, runner)
        if operation.kind == "dead_letter_abandon":
            return self._dead_letters(operation, runner)
        return self._bulk(operation)

    def _dead_letters(self, operation: Operation, runner: str) -> ItemRun:
        """Each letter abandoned with the operation's reason; its item row commits with the
        abandon, so a runner that dies in between never gives a letter up twice (a letter
        already handled is refused with ``dead_letter_handled``)."""
        abandon = self._abandon_letter
        if abandon is None:
            raise ServiceUnavailable("dead letters are not wired", port="abandon_letter")
        reason = operation.reason or ""

        async def one(letter_id: str, position: int) -> None:
            async def before_commit(uow: UnitOfWork) -> None:
                item = self.item(letter_id, position, None, None)
                if not await self._store(uow).record(operation.id, item, runner=runner):
                    raise InvalidTransition(
                        "the operation is no longer held", code="operation_over"
                    )

            try:
                await self.refuse_hidden_letter(letter_id, operation.viewer)
                await abandon(
                    letter_id, actor=operation.actor, reason=reason, before_commit=before_commit
                )
                return
            except TramitaError as exc:
                if exc.fields.get("code") == "operation_over":
                    return
                if exc.status >= 500:
                    raise
                item = self.refused(letter_id, position, exc)
            async with self._uow() as uow:
                await self._store(uow).record(operation.id, item, runner=None)
                await uow.commit()

        return one

    async def refuse_hidden_letter(self, letter_id: str, viewer: Viewer | None) -> None:
        """The unknown letter's own refusal (``NotFound``, as ``Engine.abandon`` raises it) when
        the letter's case is hidden from ``viewer`` (``runtime.services.access``), so the
        answer never tells a hidden letter from one that does not exist."""
        if viewer is None:
            return
        async with self._uow() as uow:
            letter = await uow.dead_letters.get(letter_id)
            if letter is None or await can_see(
                uow, str(letter["instance_id"]), viewer, self._clock.now()
            ):
                return
        raise NotFound(N_("unknown dead letter"), dead_letter_id=letter_id)

    def _bulk(self, operation: Operation) -> ItemRun:
        params, actor = operation.params, operation.actor
        to_queue = params.get("to_queue") or None
        to_user = params.get("to_user") or None

        async def act(task_id: str) -> None:
            key = task_key(operation.id, task_id)
            await self._tasks.refuse_hidden(task_id, operation.viewer)
            if operation.kind == "bulk_claim":
                await self._tasks.claim(task_id, actor=actor, idempotency_key=key)
            elif operation.kind == "bulk_abandon":
                await self._tasks.abandon(task_id, actor=actor, idempotency_key=key)
            else:
                await self._tasks.forward(
                    task_id,
                    actor=actor,
                    to_queue=to_queue if operation.kind == "bulk_forward" else None,
                    to_user=to_user if operation.kind == "bulk_assign" else None,
                    idempotency_key=key,
                )

        async def one(task_id: str, position: int) -> None:
            try:
                await act(task_id)
                item = self.item(task_id, position, None, None)
            except TramitaError as exc:
                if exc.status >= 500:
                    raise
                item = self.refused(task_id, position, exc)
            async with self._uow() as uow:
                await self._store(uow).record(operation.id, item, runner=None)
                await uow.commit()

        return one

    async def _migration(self, operation: Operation, runner: str) -> ItemRun:
        params = operation.params
        request = MigrationRequest(
            definition_key=str(params["definition_key"]),
            from_version=int(params["from_version"]),
            to_version=int(params["to_version"]),
            mapping={str(k): str(v) for k, v in dict(params.get("mapping") or {}).items()},
            instance_ids=tuple(operation.items),
        )
        prepared: Prepared = await self._migrator.prepare(request)
        expected = {str(k): int(v) for k, v in dict(params.get("expected") or {}).items()}

        async def one(instance_id: str, position: int) -> None:
            async def before_commit(uow: UnitOfWork, plan: InstancePlan) -> None:
                item = self.item(instance_id, position, None, None)
                if not await self._store(uow).record(operation.id, item, runner=runner):
                    # Cancelled or taken over meanwhile: the instance stays where it was.
                    raise InvalidTransition(
                        "the operation is no longer held", code="operation_over"
                    )

            try:
                plan = await self._migrator.migrate_item(
                    prepared,
                    request,
                    instance_id,
                    actor=operation.actor,
                    reason=operation.reason,
                    expected=expected.get(instance_id),
                    before_commit=before_commit,
                    viewer=operation.viewer,
                )
            except InvalidTransition as exc:
                if exc.fields.get("code") == "operation_over":
                    return
                plan = InstancePlan(
                    instance_id=instance_id, result="failed", error=exc.problem_type
                )
            except TramitaError as exc:
                if exc.status >= 500:
                    raise
                plan = InstancePlan(
                    instance_id=instance_id, result="failed", error=exc.problem_type
                )
            if plan.result == "migrated":
                return
            codes = [b.code for b in plan.blockers] or [plan.error or "failed"]
            item = self.item(instance_id, position, codes[0], {"codes": codes})
            async with self._uow() as uow:
                await self._store(uow).record(operation.id, item, runner=None)
                await uow.commit()

        return one

    def item(
        self, item_id: str, position: int, code: str | None, detail: dict[str, Any] | None
    ) -> OperationItem:
        return OperationItem(
            item_id=item_id,
            position=position,
            outcome="done" if code is None else "refused",
            code=code,
            detail=detail,
            at=self._clock.now(),
        )

    def refused(self, item_id: str, position: int, exc: TramitaError) -> OperationItem:
        code, who = exc.fields.get("code"), exc.fields.get("who")
        detail: dict[str, Any] = {"problem": exc.problem_type}
        if isinstance(who, str):
            detail["who"] = who
        return self.item(
            item_id, position, code if isinstance(code, str) else exc.problem_type, detail
        )
