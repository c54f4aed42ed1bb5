"""Who may act on a task, and which form version a task is answered with.

Authorisation needs both the queue's module permission and membership of the task's queue;
separation of duties is checked before anyone can even hold a task they could not complete
(``decide()`` checks it again at completion), and so is a multi-instance node's one task per
person (``ensure_distinct_people``). Form versions are resolved from storage and
compiled once per version: a published version never changes.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from contracts.errors import ConfigurationError, Conflict, Forbidden, NotFound
from contracts.kernel import Actor, AuditEntry, Clock, IdGen, Permissions
from services.workflow.definition.messages import N_
from services.workflow.definition.model import HUMAN_TYPES, ManualTaskNode
from services.workflow.definition.multi import multi_of
from services.workflow.definition.ports import ExpressionCompiler
from services.workflow.forms import (
    CompiledForm,
    canonical_json,
    compile_form,
    form_checksum,
    is_new_version,
    parse_form,
    parse_form_ref,
)
from services.workflow.runtime.kernel.multi import ensure_distinct_people
from services.workflow.runtime.ports import InstanceRecord, TaskRecord, UnitOfWork
from services.workflow.runtime.ports.human import (
    DEFAULT_PERMISSION,
    FORWARD_ANY_PERMISSION,
    SUPERVISOR_PERMISSION,
    FormRecord,
    Grants,
    HumanStore,
    QueueRecord,
)
from services.workflow.runtime.services.applier import state_from_json
from services.workflow.runtime.services.publishing import ModelCompiler


class TaskGuard:
    def __init__(
        self,
        *,
        permissions: Permissions,
        compiler: ModelCompiler,
        expressions: ExpressionCompiler,
        forward_targets: Mapping[str, tuple[str, ...]] | None = None,
    ) -> None:
        self._permissions = permissions
        self._compiler = compiler
        self._expressions = expressions
        self._targets = dict(forward_targets or {})
        self._forms: dict[tuple[str, int], CompiledForm] = {}

    async def authorise(
        self, store: HumanStore, task: TaskRecord, user_id: str, who: str, grants: Grants
    ) -> None:
        """The queue's module permission and membership of the task's queue, both required."""
        queue = await store.queue(task.queue) if task.queue else None
        permission = queue.permission if queue is not None else DEFAULT_PERMISSION
        if permission not in grants.get(user_id, frozenset()):
            raise Forbidden(
                "missing the queue's permission",
                task_id=task.id,
                code="missing_permission",
                permission=permission,
                who=who,
            )
        if queue is None or not await store.is_member(queue.key, user_id):
            raise Forbidden(
                "not a member of the task's queue",
                task_id=task.id,
                code="not_a_member",
                queue=task.queue or "",
                who=who,
            )

    async def authorise_holder(
        self, store: HumanStore, task: TaskRecord, user_id: str, grants: Grants
    ) -> None:
        """Who may move a task (forward, reassign, abandon): anyone authorised on it, and an
        administrator always — so a task that landed in the wrong queue is never stranded."""
        if SUPERVISOR_PERMISSION not in grants.get(user_id, frozenset()):
            await self.authorise(store, task, user_id, "actor", grants)

    async def may_forward_into(
        self, store: HumanStore, task: TaskRecord, user_id: str, target: str, grants: Grants
    ) -> None:
        """The forwarding policy: into a queue the person is a member of, into a ``forward_to``
        target declared for the task's queue, or anywhere with ``workflow.tasks.forward_any``
        or ``workflow.admin``. Anything else would hand the task to people the forwarder
        cannot reach, and nobody of the source queue could bring it back."""
        granted = grants.get(user_id, frozenset())
        if granted & {SUPERVISOR_PERMISSION, FORWARD_ANY_PERMISSION}:
            return
        if target in self._targets.get(task.queue or "", ()):
            return
        if await store.is_member(target, user_id):
            return
        raise Forbidden(
            "forwarding into a queue one is not a member of needs a declared target",
            task_id=task.id,
            code="forward_not_allowed",
            queue=task.queue or "",
            target=target,
            permission=FORWARD_ANY_PERMISSION,
        )

    async def permissions_of(self, user_id: str) -> frozenset[str]:
        """Kernel user ids are UUIDs: anything else is nobody, and holds nothing."""
        try:
            uuid.UUID(user_id)
        except ValueError:
            return frozenset()
        return await self._permissions.of(user_id)

    async def require_supervisor(self, task: TaskRecord, granted: frozenset[str]) -> None:
        if SUPERVISOR_PERMISSION not in granted:
            raise Conflict(
                "the task is claimed by someone else", task_id=task.id, code="claimed_by_other"
            )

    async def separation_of_duties(self, uow: UnitOfWork, task: TaskRecord, user: str) -> None:
        """Deny holding a task its policy would not let this person complete."""
        record = await uow.instances.get(task.instance_id)
        assert record is not None
        node = await self.node(uow, record, task.node_id)
        if not isinstance(node, HUMAN_TYPES) or isinstance(node, ManualTaskNode):
            return
        state = state_from_json(record.state)
        ids: dict[str, Any] = {
            "task_id": task.id,
            "node_id": node.id,
            "code": "separation_of_duties",
        }
        if node.policy.exclude_author and user == (state.author or record.author_id):
            raise Forbidden(
                "The author of the instance cannot hold this task", rule="exclude_author", **ids
            )
        excluded = set(node.policy.exclude_completers_of)
        if any(c.node_id in excluded and c.actor == user for c in state.completed_nodes):
            raise Forbidden(
                "A completer of an earlier task cannot hold this task",
                rule="exclude_completers_of",
                **ids,
            )
        if multi_of(node) is not None:
            same = (node.id, task.attempt_group)
            done = state.completed_nodes
            others = [c.actor for c in done if (c.node_id, c.attempt_group) == same]
            others += [
                t.assignee
                for t in await uow.tasks.of(task.instance_id)
                if t.status == "claimed"
                and t.id != task.id
                and (t.node_id, t.attempt_group) == same
            ]
            ensure_distinct_people(node, task.token_id, user, others)

    async def node(self, uow: UnitOfWork, record: InstanceRecord, node_id: str) -> Any:
        version = await uow.versions.get(record.version_id)
        assert version is not None
        return self._compiler.for_version(version, record.definition_key).nodes[node_id]

    async def pin(self, store: HumanStore, reference: str) -> str:
        """``key`` -> ``key@<latest published>``; a pinned or unpublished reference is kept."""
        ref = parse_form_ref(reference)
        if ref.version is not None:
            return reference
        found = await store.latest_form(ref.key)
        return reference if found is None else f"{found.key}@{found.version}"

    async def form(self, store: HumanStore, task: TaskRecord) -> CompiledForm:
        """The task's form version: pinned by ``key@n``, else the latest when it opened."""
        assert task.form is not None
        ref = parse_form_ref(task.form)
        if ref.version is None:
            found = await store.latest_form(ref.key, task.created_at)
        else:
            found = await store.form(ref.key, ref.version)
        if found is None:
            raise ConfigurationError("the task's form version is not published", form=task.form)
        return self.compiled(found)

    def compiled(self, found: FormRecord) -> CompiledForm:
        """A stored form version compiled (once per version), refused if its schema no longer
        matches the checksum it was published with."""
        cached = self._forms.get((found.key, found.version))
        if cached is None:
            compiled = compile_form(
                parse_form(found.schema, compiler=self._expressions), self._expressions
            )
            if compiled.checksum != found.checksum:
                raise ConfigurationError(
                    "a stored form version does not match its checksum",
                    form=f"{found.key}@{found.version}",
                )
            cached = self._forms[(found.key, found.version)] = compiled
        return cached


class Catalog:
    """Keeps the stored queues, default members and form versions in step with what modules
    registered; run at boot. A published form version is immutable: registering different
    content under it refuses to boot rather than silently rewrite what people answered."""

    def __init__(
        self,
        *,
        uow_factory: Callable[[], UnitOfWork],
        store: Callable[[UnitOfWork], HumanStore],
        clock: Clock,
        ids: IdGen,
        expressions: ExpressionCompiler,
    ) -> None:
        self._uow = uow_factory
        self._store = store
        self._clock = clock
        self._ids = ids
        self._expressions = expressions

    async def sync(
        self,
        queues: Mapping[str, tuple[str, tuple[str, ...], str]],
        forms: Iterable[Mapping[str, Any]],
        *,
        actor: Actor,
    ) -> list[str]:
        """One transaction for everything; returns a line per change."""
        parsed = [parse_form(dict(f), compiler=self._expressions) for f in forms]
        lines: list[str] = []
        now = self._clock.now()
        async with self._uow() as uow:
            store = self._store(uow)
            for key, (name, members, permission) in sorted(queues.items()):
                queue = QueueRecord(key=key, name=name, active=True, permission=permission)
                if await store.save_queue(queue, now):
                    lines.append(f"queue {key}")
                    await self._audit(
                        uow,
                        "workflow.queue.saved",
                        "workflow_queue",
                        key,
                        actor,
                        {"permission": permission, "active": True},
                    )
                added = await store.add_members(key, members, now)
                if added:
                    await self._audit(
                        uow,
                        "workflow.queue.members_added",
                        "workflow_queue",
                        key,
                        actor,
                        {"members": added},
                    )
            for schema in parsed:
                found = await store.form(schema.key, schema.version)
                if not is_new_version(schema, found.checksum if found else None):
                    continue
                record = FormRecord(
                    id=str(self._ids.new_id()),
                    key=schema.key,
                    version=schema.version,
                    schema=canonical_json(schema).decode(),
                    checksum=form_checksum(schema),
                    status="published",
                    published_at=now,
                )
                await store.add_form(record, actor.id)
                await self._audit(
                    uow,
                    "workflow.form.published",
                    "workflow_form",
                    record.id,
                    actor,
                    {"key": schema.key, "version": schema.version, "checksum": record.checksum},
                )
                lines.append(f"form {schema.key}@{schema.version} (new)")
            await uow.commit()
        return lines

    async def add_member(
        self, queue: str, user_id: str, *, actor: Actor, reason: str | None = None
    ) -> bool:
        async with self._uow() as uow:
            store = self._store(uow)
            if await store.queue(queue) is None:
                raise NotFound(N_("unknown queue"), queue=queue)
            added = await store.add_members(queue, [user_id], self._clock.now())
            if added:
                await self._audit(
                    uow,
                    "workflow.queue.members_added",
                    "workflow_queue",
                    queue,
                    actor,
                    {"members": added},
                    reason=reason,
                )
            await uow.commit()
        return bool(added)

    async def members(self, queue: str) -> list[str]:
        """The queue's member user ids, sorted; ``NotFound`` for an unknown queue."""
        async with self._uow() as uow:
            store = self._store(uow)
            if await store.queue(queue) is None:
                raise NotFound(N_("unknown queue"), queue=queue)
            return await store.members(queue)

    async def remove_member(
        self, queue: str, user_id: str, *, actor: Actor, reason: str | None = None
    ) -> bool:
        async with self._uow() as uow:
            store = self._store(uow)
            if await store.queue(queue) is None:
                raise NotFound(N_("unknown queue"), queue=queue)
            removed = await store.remove_member(queue, user_id)
            if removed:
                await self._audit(
                    uow,
                    "workflow.queue.member_removed",
                    "workflow_queue",
                    queue,
                    actor,
                    {"member": user_id},
                    reason=reason,
                )
            await uow.commit()
        return removed

    async def _audit(
        self,
        uow: UnitOfWork,
        action: str,
        kind: str,
        object_id: str,
        actor: Actor,
        after: dict[str, Any],
        *,
        reason: str | None = None,
    ) -> None:
        await uow.audit.append(
            AuditEntry(
                action=action,
                object_type=kind,
                object_id=object_id,
                actor=actor,
                after=after,
                reason=reason,
            )
        )
