"""The machinery every task action runs through (:class:`TaskActionRunner`).

One action is one unit of work: the people it concerns have their permissions read first, the
task is locked (after its instance when the action advances it: the engine's lock order), the
action's body runs and the task's view is the answer. Given an idempotency key, the answer is
recorded with a fingerprint of the request, so a double click or a retried request does the work
once and gets the same answer back, and the same key reused for another request is refused.
Refusals are audited in a transaction of their own (the refused one rolls back). A bulk action
runs each task in its own transaction and reports one :class:`BulkItem` per task.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import msgspec

from contracts.errors import (
    Conflict,
    Forbidden,
    IdempotencyKeyReused,
    NotFound,
    TramitaError,
)
from contracts.kernel import Actor, AuditEntry, Clock, IdGen
from contracts.workflow.types import TaskView
from services.workflow.runtime.ports import TaskRecord, UnitOfWork
from services.workflow.runtime.ports.access import Viewer
from services.workflow.runtime.ports.human import (
    ActionRecord,
    Body,
    BulkItem,
    HumanStore,
    fingerprint,
    is_uuid,
)
from services.workflow.runtime.services.access import hides_task
from services.workflow.runtime.services.applying import ApplyIn
from services.workflow.runtime.services.human_policy import TaskGuard
from services.workflow.runtime.services.publishing import ModelCompiler
from services.workflow.runtime.services.views import task_view

__all__ = ["TaskActionRunner"]


class TaskActionRunner:
    """What the task actions share: their collaborators, the unit of work each one runs in,
    idempotent replay, the audit of what was done and of what was refused."""

    def __init__(
        self,
        *,
        uow_factory: Callable[[], UnitOfWork],
        store: Callable[[UnitOfWork], HumanStore],
        clock: Clock,
        ids: IdGen,
        guard: TaskGuard,
        compiler: ModelCompiler,
        apply_in: ApplyIn,
        wakeup: Callable[[], None],
    ) -> None:
        self._uow = uow_factory
        self._store = store
        self._clock = clock
        self._ids = ids
        self._guard = guard
        self._compiler = compiler
        self._apply_in = apply_in
        self._wakeup = wakeup

    async def _bulk(
        self,
        task_ids: list[str],
        key: str | None,
        one: Callable[[str, str | None], Awaitable[TaskView]],
        viewer: Viewer | None = None,
    ) -> list[BulkItem]:
        """Each task in its own transaction: one refusal never undoes the others. With
        ``viewer``, a task of a case hidden from them is refused as an unknown task."""
        results = []
        for task_id in dict.fromkeys(task_ids):
            try:
                await self.refuse_hidden(task_id, viewer)
                view = await one(task_id, f"{key}:{task_id}" if key else None)
                results.append(BulkItem(task_id=task_id, ok=True, task=view))
            except TramitaError as exc:
                code, who = exc.fields.get("code"), exc.fields.get("who")
                results.append(
                    BulkItem(
                        task_id=task_id,
                        ok=False,
                        problem=exc.problem_type,
                        status=exc.status,
                        code=code if isinstance(code, str) else None,
                        who=who if isinstance(who, str) else None,
                    )
                )
        return results

    async def refuse_hidden(self, task_id: str, viewer: Viewer | None) -> None:
        """The unknown task's own refusal when the task's case is hidden from ``viewer``."""
        async with self._uow() as uow:
            hidden = await hides_task(uow, task_id, viewer, self._clock.now())
        if hidden:
            raise NotFound("unknown task", task_id=task_id, code="unknown_task")

    async def _run(
        self,
        action: str,
        task_id: str,
        actor: Actor,
        key: str | None,
        params: Mapping[str, Any],
        body: Body,
        *,
        lock_instance_first: bool = False,
        users: tuple[str, ...] = (),
    ) -> TaskView:
        digest = fingerprint(action, task_id, params)
        grants = {u: await self._guard.permissions_of(u) for u in (actor.id, *users)}
        try:
            async with self._uow() as uow:
                store = self._store(uow)
                if key is not None:
                    done = await self._replay(store, actor, key, digest)
                    if done is not None:
                        return done
                if actor.kind != "user":
                    raise Forbidden(
                        "only people act on tasks", task_id=task_id, code="not_a_person"
                    )
                if not is_uuid(task_id):  # names no task; PostgreSQL would not even cast it
                    raise NotFound("unknown task", task_id=task_id, code="unknown_task")
                if lock_instance_first:  # the engine's lock order: instance, then its tasks
                    instance_id = await store.task_instance_id(task_id)
                    if instance_id is not None:
                        await uow.instances.lock(instance_id)
                task = await uow.tasks.lock(task_id)
                if task is None:
                    raise NotFound("unknown task", task_id=task_id, code="unknown_task")
                now = self._clock.now()
                await body(uow, store, task, now, grants)
                changed = await uow.tasks.lock(task_id)
                instance = await uow.instances.get(task.instance_id)
                assert changed is not None and instance is not None
                view = task_view(changed, instance.protocol)
                if key is not None:
                    response = msgspec.to_builtins(view)
                    await store.add_action(
                        actor.id,
                        key,
                        ActionRecord(
                            action=action,
                            task_id=task_id,
                            fingerprint=digest,
                            response=response,
                        ),
                        now,
                    )
                await uow.commit()
        except (Conflict, Forbidden) as refused:
            if key is not None and not isinstance(refused, IdempotencyKeyReused):
                async with self._uow() as uow:  # the same request may have won meanwhile
                    done = await self._replay(self._store(uow), actor, key, digest)
                if done is not None:
                    return done
            await self._record_refusal(task_id, action, refused, actor)
            raise
        self._wakeup()
        return view

    async def _replay(
        self, store: HumanStore, actor: Actor, key: str, fingerprint: str
    ) -> TaskView | None:
        found = await store.action(actor.id, key)
        if found is None:
            return None
        if found.fingerprint != fingerprint:
            raise IdempotencyKeyReused(idempotency_key=key, task_id=found.task_id)
        return msgspec.json.decode(msgspec.json.encode(found.response), type=TaskView)

    async def _record_refusal(
        self, task_id: str, action: str, refused: TramitaError, actor: Actor
    ) -> None:
        async with self._uow() as uow:
            task = await uow.tasks.lock(task_id)
            if task is None:
                return
            after = {k: v for k, v in refused.fields.items() if isinstance(v, str | int)}
            await uow.audit.append(
                AuditEntry(
                    action="workflow.task.refused",
                    object_type="workflow_task",
                    object_id=task_id,
                    actor=actor,
                    after={"action": action, "problem": refused.problem_type, **after},
                    reason=refused.detail,
                    correlation_id=task.instance_id,
                )
            )
            await uow.commit()

    async def _audit(
        self, uow: UnitOfWork, verb: str, task: TaskRecord, actor: Actor, after: dict[str, Any]
    ) -> None:
        await uow.audit.append(
            AuditEntry(
                action=f"workflow.task.{verb}",
                object_type="workflow_task",
                object_id=task.id,
                actor=actor,
                before={"status": task.status, "assignee": task.assignee, "queue": task.queue},
                after=after,
                correlation_id=task.instance_id,
            )
        )
