"""Task actions: claim, release, complete, forward and their bulk forms.

Every action is one unit of work that is authorised (the queue's module permission *and*
membership of the task's queue — claiming never bypasses either; an administrator may always
move a task: forward, reassign, abandon), forwards only into queues the forwarding policy
allows (``TaskGuard.may_forward_into``), checks separation of duties
before a person can even hold a task they could not complete, writes an audit entry and, when
given an idempotency key, records its answer so a double click or a retried request does the
work once and gets the same answer back. Completing validates the form submission against the
task's exact form version, stores a snapshot and advances the instance in that same
transaction. Refusals are audited in a transaction of their own (the refused one rolls back).
What every action runs through (its unit of work, replay, the audit) is ``human_task_runner``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from contracts.errors import (
    Conflict,
    DocumentRequired,
    FieldError,
    Forbidden,
    InvalidTransition,
    NotFound,
    ValidationFailed,
)
from contracts.kernel import Actor
from contracts.workflow.types import TaskView
from services.workflow.forms import (
    CompiledForm,
    encode_snapshot,
    take_snapshot,
    validate_compiled,
)
from services.workflow.runtime.kernel.events import TaskCompleted
from services.workflow.runtime.ports import TaskRecord, UnitOfWork
from services.workflow.runtime.ports.access import Viewer
from services.workflow.runtime.ports.human import (
    OPEN,
    SUPERVISOR_PERMISSION,
    BulkItem,
    FormRecord,
    Grants,
    HumanStore,
    ensure_open,
)
from services.workflow.runtime.services.applier import state_from_json
from services.workflow.runtime.services.human_task_runner import TaskActionRunner

__all__ = ["BulkItem", "TaskService"]

MAX_PRIORITY = 9
"""Task priorities run from 0 (normal) to this (most urgent); pages offer 0, 5 and 9."""
MAX_REASON = 500


class TaskService(TaskActionRunner):
    """The task actions a person takes, each run by :class:`TaskActionRunner`."""

    async def form_version(self, key: str, version: int) -> tuple[FormRecord, CompiledForm]:
        """A stored form version and its compiled form — what completing a task pinned to
        ``key@version`` validates against (checksum-checked, compiled once per version)."""
        async with self._uow() as uow:
            found = await self._store(uow).form(key, version)
        if found is None:
            raise NotFound("unknown form version", form_key=key, version=version)
        return found, self._guard.compiled(found)

    # --- the public actions -------------------------------------------------------------------

    async def claim(
        self, task_id: str, *, actor: Actor, idempotency_key: str | None = None
    ) -> TaskView:
        async def body(
            uow: UnitOfWork, store: HumanStore, task: TaskRecord, now: datetime, grants: Grants
        ) -> None:
            ensure_open(task)
            if task.status == "claimed" and task.assignee != actor.id:
                raise Conflict(
                    "the task is claimed by someone else", task_id=task.id, code="claimed_by_other"
                )
            await self._guard.authorise(store, task, actor.id, "actor", grants)
            await self._guard.separation_of_duties(uow, task, actor.id)
            if task.status == "claimed":
                return
            await uow.tasks.update(task.id, status="claimed", assignee=actor.id, claimed_at=now)
            await self._audit(
                uow, "claimed", task, actor, {"status": "claimed", "assignee": actor.id}
            )

        return await self._run("claim", task_id, actor, idempotency_key, {}, body)

    async def release(
        self, task_id: str, *, actor: Actor, idempotency_key: str | None = None
    ) -> TaskView:
        """Give a claimed task back to its queue (the holder, or a supervisor: ``abandon``)."""
        return await self._release("release", task_id, actor, idempotency_key)

    async def abandon(
        self, task_id: str, *, actor: Actor, idempotency_key: str | None = None
    ) -> TaskView:
        return await self._release("abandon", task_id, actor, idempotency_key)

    async def forward(
        self,
        task_id: str,
        *,
        actor: Actor,
        to_user: str | None = None,
        to_queue: str | None = None,
        idempotency_key: str | None = None,
    ) -> TaskView:
        """Hand a task to one person (it becomes theirs) or to another queue (it is ready)."""
        if (to_user is None) == (to_queue is None):
            raise ValidationFailed(
                "forward needs exactly one of to_user and to_queue", task_id=task_id
            )

        async def body(
            uow: UnitOfWork, store: HumanStore, task: TaskRecord, now: datetime, grants: Grants
        ) -> None:
            ensure_open(task)
            await self._guard.authorise_holder(store, task, actor.id, grants)
            if task.status == "claimed" and task.assignee != actor.id:
                await self._guard.require_supervisor(task, grants[actor.id])
            if to_queue is not None:
                queue = await store.queue(to_queue)
                if queue is None or not queue.active:
                    raise NotFound(
                        "unknown or inactive queue", queue=to_queue, code="unknown_queue"
                    )
                await self._guard.may_forward_into(store, task, actor.id, to_queue, grants)
                values: dict[str, Any] = {
                    "queue": to_queue,
                    "assignee": None,
                    "status": "ready",
                    "claimed_at": None,
                }
            else:
                assert to_user is not None
                await self._guard.authorise(store, task, to_user, "target", grants)
                await self._guard.separation_of_duties(uow, task, to_user)
                values = {"assignee": to_user, "status": "claimed", "claimed_at": now}
            await uow.tasks.update(task.id, **values)
            await self._audit(
                uow,
                "forwarded",
                task,
                actor,
                {k: v for k, v in values.items() if k != "claimed_at"},
            )

        params = {"to_user": to_user, "to_queue": to_queue}
        return await self._run(
            "forward",
            task_id,
            actor,
            idempotency_key,
            params,
            body,
            users=(to_user,) if to_user else (),
        )

    async def complete(
        self,
        task_id: str,
        *,
        actor: Actor,
        outcome: str | None = None,
        data: dict[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> TaskView:
        submitted = dict(data or {})

        async def body(
            uow: UnitOfWork, store: HumanStore, task: TaskRecord, now: datetime, grants: Grants
        ) -> None:
            ensure_open(task)
            if task.status == "claimed" and task.assignee != actor.id:
                raise Conflict(
                    "the task is claimed by someone else", task_id=task.id, code="claimed_by_other"
                )
            await self._guard.authorise(store, task, actor.id, "actor", grants)
            record = await uow.instances.lock(task.instance_id)
            assert record is not None, "a task always belongs to an instance"
            version = await uow.versions.get(record.version_id)
            assert version is not None
            model = self._compiler.for_version(version, record.definition_key)
            node = model.nodes[task.node_id]
            await _ensure_documents(store, task, getattr(node, "documents", ()))
            values = submitted
            snapshot = None
            if task.form is not None:
                form = await self._guard.form(store, task)
                previous = {k: v for k, v in record.context.items() if k in form.fields}
                clean = validate_compiled(form, submitted, previous=previous)
                snapshot = take_snapshot(clean, submitted_at=now, actor_id=actor.id)
                values = {k: v for k, v in clean.as_dict().items() if k in node.produces}
            event = TaskCompleted(
                at=now,
                token_id=task.token_id,
                node_id=task.node_id,
                attempt_group=task.attempt_group,
                outcome=outcome,
                data=values,
                actor=actor.id,
            )
            state = state_from_json(record.state)
            applied = await self._apply_in(uow, record, model, state, event, actor=actor, now=now)
            updated = applied.record
            after = await uow.tasks.lock(task.id)
            assert after is not None
            if after.status in OPEN:  # a quorum vote that did not decide: back to the queue
                await uow.tasks.update(task.id, status="ready", assignee=None, claimed_at=None)
                action = "voted"
            else:
                await uow.tasks.update(
                    task.id,
                    status="completed",
                    assignee=actor.id,
                    outcome=outcome,
                    data=values,
                    completed_by=actor.id,
                    completed_at=now,
                    claimed_at=task.claimed_at or now,
                )
                action = "completed"
            if snapshot is not None:
                await store.add_submission(
                    submission_id=str(self._ids.new_id()),
                    task_id=task.id,
                    instance_id=task.instance_id,
                    form_key=snapshot.form_key,
                    form_version=snapshot.form_version,
                    form_checksum=snapshot.form_checksum,
                    snapshot=encode_snapshot(snapshot),
                    actor_id=actor.id,
                    submitted_at=now,
                )
            await self._audit(
                uow,
                action,
                task,
                actor,
                {
                    "status": "completed" if action == "completed" else "ready",
                    "outcome": outcome,
                    "instance_status": updated.status,
                    "form": snapshot.form_ref if snapshot else None,
                },
            )

        params = {"outcome": outcome, "data": submitted}
        return await self._run(
            "complete", task_id, actor, idempotency_key, params, body, lock_instance_first=True
        )

    async def set_priority(
        self,
        task_id: str,
        *,
        actor: Actor,
        priority: int,
        reason: str,
        idempotency_key: str | None = None,
    ) -> TaskView:
        """A supervisor says how urgent an open task is (``0`` normal up to ``MAX_PRIORITY``),
        with a reason; the audit entry keeps the previous value, the new one and the reason."""
        reason = reason.strip()
        errors = []
        if not 0 <= priority <= MAX_PRIORITY:
            errors.append(FieldError(path="priority", code="out_of_range", message="0 to 9."))
        if not reason or len(reason) > MAX_REASON:
            errors.append(FieldError(path="reason", code="reason_required", message="A reason."))
        if errors:
            raise ValidationFailed("a priority needs a level and a reason", errors=errors)

        async def body(
            uow: UnitOfWork, store: HumanStore, task: TaskRecord, now: datetime, grants: Grants
        ) -> None:
            ensure_open(task)
            if SUPERVISOR_PERMISSION not in grants[actor.id]:
                raise Forbidden(
                    "setting a priority needs the supervisor permission",
                    task_id=task.id,
                    code="not_a_supervisor",
                    permission=SUPERVISOR_PERMISSION,
                )
            if task.priority == priority:
                return
            await uow.tasks.update(task.id, priority=priority)
            after = {"priority": priority, "previous_priority": task.priority, "reason": reason}
            await self._audit(uow, "prioritised", task, actor, after)

        params = {"priority": priority, "reason": reason}
        return await self._run("set_priority", task_id, actor, idempotency_key, params, body)

    # --- bulk ---------------------------------------------------------------------------------

    # With ``viewer`` (the person who names the tasks), a task of a case hidden from them is
    # refused exactly as an unknown task (``TaskActionRunner._bulk``).

    async def bulk_claim(
        self,
        task_ids: list[str],
        *,
        actor: Actor,
        idempotency_key: str | None = None,
        viewer: Viewer | None = None,
    ) -> list[BulkItem]:
        return await self._bulk(
            task_ids,
            idempotency_key,
            lambda t, k: self.claim(t, actor=actor, idempotency_key=k),
            viewer,
        )

    async def bulk_reassign(
        self,
        task_ids: list[str],
        *,
        actor: Actor,
        to_user: str | None = None,
        to_queue: str | None = None,
        idempotency_key: str | None = None,
        viewer: Viewer | None = None,
    ) -> list[BulkItem]:
        return await self._bulk(
            task_ids,
            idempotency_key,
            lambda t, k: self.forward(
                t, actor=actor, to_user=to_user, to_queue=to_queue, idempotency_key=k
            ),
            viewer,
        )

    async def bulk_abandon(
        self,
        task_ids: list[str],
        *,
        actor: Actor,
        idempotency_key: str | None = None,
        viewer: Viewer | None = None,
    ) -> list[BulkItem]:
        return await self._bulk(
            task_ids,
            idempotency_key,
            lambda t, k: self.abandon(t, actor=actor, idempotency_key=k),
            viewer,
        )

    # --- release and abandon ------------------------------------------------------------------

    async def _release(self, action: str, task_id: str, actor: Actor, key: str | None) -> TaskView:
        async def body(
            uow: UnitOfWork, store: HumanStore, task: TaskRecord, now: datetime, grants: Grants
        ) -> None:
            ensure_open(task)
            if task.status != "claimed":
                raise InvalidTransition(
                    "the task is not claimed", task_id=task.id, code="not_claimed"
                )
            await self._guard.authorise_holder(store, task, actor.id, grants)
            if task.assignee != actor.id:
                await self._guard.require_supervisor(task, grants[actor.id])
            await uow.tasks.update(task.id, status="ready", assignee=None, claimed_at=None)
            verb = "released" if action == "release" else "abandoned"
            await self._audit(
                uow, verb, task, actor, {"status": "ready", "previous_assignee": task.assignee}
            )

        return await self._run(action, task_id, actor, key, {}, body)


async def _ensure_documents(store: HumanStore, task: TaskRecord, required: tuple[str, ...]) -> None:
    """A task whose node names ``documents`` completes only once the process holds a current
    document of each type; otherwise :class:`DocumentRequired` names the node and the type."""
    if not required:
        return
    held = await store.current_document_types(task.instance_id)
    for type_key in required:
        if type_key not in held:
            raise DocumentRequired(
                "the task needs a document of this type before it completes",
                node_id=task.node_id,
                document_type=type_key,
            )
