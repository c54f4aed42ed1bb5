"""Call activities between instances: a parent's token starts a child, the child's end resumes it.

- **Start.** A decision with :class:`StartChild` starts the child in the parent's transaction
  (``Starter.start_in``: the version is resolved now and pinned on the child's row, like any
  start). The child's id is derived from the parent, token, node and attempt group, so the
  child belongs to exactly one wait: a retried or redelivered event re-decides from what was
  committed, and a committed wait already has its child.
- **Return.** The decision that ends a child writes an outbox message (``CALL_TOPIC``) to its
  parent in the child's transaction; delivery (at least once) hands it to :meth:`Calls.returned`,
  which locks the parent alone and decides :class:`ChildEnded` if the token still waits for
  that child, and does nothing otherwise — a redelivery or a parent that moved on.
  Locks: a start and a cancellation lock parent then child; a return locks only the parent.
- **Cancel.** The decision that ends a parent (cancelled, failed, an error end), or that takes
  a token away from its wait (a boundary timer), cancels, in the same transaction, every child
  those waits started that is still running (reason ``parent_ended`` or ``interrupted``), and
  closes that child's open dead letters as an operator's cancel does.
- **Embedded sub-process.** A ``subprocess`` node starts its child the same way, on the
  sub-process's model in the parent's own version (``definition_key`` ``<key>.<node id>``),
  with the whole context; on completion the whole child context is copied back, and a child
  that failed on a business error its sub-process catches reports that code.
- **Errors outward.** A child starts with the error codes its enclosing scopes catch
  (``StartChild.catches``, kept in its state), so a business error travels out level by level:
  each child that fails on it reports its code in the parent's ``ChildEnded``.
- **Subject.** A child is about the same case as its parent: it inherits the parent's subject
  (``subject_type``/``subject_id``), never its business key (a message correlates by business
  key to exactly one open instance, and a parent waits open beside its child).
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Protocol

from contracts.errors import InvalidTransition
from contracts.kernel import Actor, AuditEntry, Clock
from contracts.workflow.types import StartRequest, SubjectRef
from services.workflow.definition import CompiledModel
from services.workflow.definition.model import CallNode, SubprocessNode
from services.workflow.runtime.kernel.effects import Decision, StartChild
from services.workflow.runtime.kernel.events import Cancelled, ChildEnded
from services.workflow.runtime.kernel.naming import CALL_TOPIC
from services.workflow.runtime.kernel.state import TERMINAL, InstanceState, Token
from services.workflow.runtime.ports import InstanceRecord, UnitOfWork
from services.workflow.runtime.services.applier import state_from_json
from services.workflow.runtime.services.applying import ApplyIn
from services.workflow.runtime.services.dead_letter_actions import close_open_letters

ENGINE = Actor.system("engine")
ModelOf = Callable[[UnitOfWork, InstanceRecord], Awaitable[CompiledModel]]


class StartIn(Protocol):
    async def __call__(
        self,
        uow: UnitOfWork,
        request: StartRequest,
        now: datetime,
        *,
        instance_id: str | None = None,
        parent_instance_id: str | None = None,
        embedded_in: str | None = None,
        catches: tuple[str, ...] = (),
    ) -> InstanceRecord: ...


def child_id(parent_id: str, token_id: str, node_id: str, attempt_group: int) -> str:
    """The id of the child a wait starts: the same wait always names the same child."""
    name = f"tramita:call:{parent_id}:{token_id}:{node_id}:{attempt_group}"
    return str(uuid.uuid5(uuid.NAMESPACE_URL, name))


def parent_subject(parent: InstanceRecord) -> SubjectRef | None:
    """The subject a child inherits: its parent's, so the module sees the same case."""
    if parent.subject_type is None or parent.subject_id is None:
        return None
    return SubjectRef(type=parent.subject_type, id=parent.subject_id)


def waiting_calls(
    model: CompiledModel, state: InstanceState
) -> list[tuple[Token, CallNode | SubprocessNode]]:
    """The tokens of ``state`` that wait at a call or sub-process node for their child."""
    out = []
    for token in state.tokens:
        node = model.nodes.get(token.node_id)
        if isinstance(node, CallNode | SubprocessNode) and token.status == "waiting":
            out.append((token, node))
    return out


def _waits(parent_id: str, model: CompiledModel, state: InstanceState) -> list[str]:
    """The ids of the children that the waiting call tokens of ``state`` started."""
    return [
        child_id(parent_id, token.id, node.id, token.attempt_group)
        for token, node in waiting_calls(model, state)
    ]


class Calls:
    def __init__(
        self,
        *,
        uow_factory: Callable[[], UnitOfWork],
        clock: Clock,
        model_of: ModelOf,
        start_in: StartIn,
        apply_in: ApplyIn,
        wakeup: Callable[[], None],
    ) -> None:
        self._uow = uow_factory
        self._clock = clock
        self._model_of = model_of
        self._start_in = start_in
        self._apply_in = apply_in
        self._wakeup = wakeup

    async def after(
        self,
        uow: UnitOfWork,
        before: InstanceRecord,
        state: InstanceState,
        model: CompiledModel,
        decision: Decision,
        updated: InstanceRecord,
        now: datetime,
    ) -> None:
        """What a decision on ``before`` (in ``state``) means for other instances, written in
        the same unit of work: children to start, children to cancel (of every wait the
        decision ended: the instance ended, or a boundary timer took the token away), a parent
        to tell."""
        ended = updated.ended_at is not None and before.ended_at is None
        if not ended:
            for effect in decision.effects:
                if isinstance(effect, StartChild):
                    await self._start_child(uow, updated, effect, now)
        kept = set() if ended else set(_waits(before.id, model, decision.new_state))
        for cid in _waits(before.id, model, state):
            if cid not in kept:
                # nothing if the child has ended; else it ends with its parent or the wait
                await self._cancel_child(uow, cid, now, "parent_ended" if ended else "interrupted")
        if ended and updated.parent_instance_id is not None:
            await uow.outbox.enqueue(
                CALL_TOPIC, updated.parent_instance_id, {"child_id": updated.id}, available_at=now
            )

    async def _start_child(
        self, uow: UnitOfWork, parent: InstanceRecord, effect: StartChild, now: datetime
    ) -> None:
        cid = child_id(parent.id, effect.token_id, effect.node_id, effect.attempt_group)
        request = StartRequest(
            definition_key=effect.definition,
            version=effect.version,
            context=dict(effect.input),
            subject=parent_subject(parent),
            actor=ENGINE,
            tenant=parent.tenant,  # a child is its parent's tenant's case
        )
        await self._start_in(
            uow,
            request,
            now,
            instance_id=cid,
            parent_instance_id=parent.id,
            embedded_in=parent.version_id if effect.embedded else None,
            catches=effect.catches,
        )

    async def _cancel_child(self, uow: UnitOfWork, cid: str, now: datetime, reason: str) -> None:
        child = await uow.instances.get(cid)
        if child is None or child.ended_at is not None:
            return  # the usual case when its end resumed the wait: no lock taken
        child = await uow.instances.lock(cid)
        if child is None or child.ended_at is not None:
            return
        model = await self._model_of(uow, child)
        event = Cancelled(at=now, reason=reason, actor=None)
        try:
            await self._apply_in(
                uow, child, model, state_from_json(child.state), event, actor=ENGINE, now=now
            )
        except InvalidTransition:
            return  # compensating: its saga finishes on its own
        await close_open_letters(uow, cid, ENGINE, now)  # as an operator's cancel does
        await uow.audit.append(
            AuditEntry(
                action="workflow.instance.cancelled",
                object_type="workflow_instance",
                object_id=cid,
                actor=ENGINE,
                before={"status": child.status, "nodes": child.current_nodes},
                after={"status": "cancelled", "parent": child.parent_instance_id},
                reason=reason,
                correlation_id=cid,
            )
        )

    async def returned(self, cid: str) -> str:
        """Resume the parent of the ended child ``cid`` (one delivery of ``CALL_TOPIC``)."""
        now = self._clock.now()
        async with self._uow() as uow:
            child = await uow.instances.get(cid)
            if child is None or child.parent_instance_id is None or child.ended_at is None:
                return "unknown_child"
            parent = await uow.instances.lock(child.parent_instance_id)
            if parent is None:
                return "unknown_parent"
            model = await self._model_of(uow, parent)
            state = state_from_json(parent.state)
            if state.status in TERMINAL:
                return "parent_ended"
            wait = next(
                (
                    (token, node)
                    for token, node in waiting_calls(model, state)
                    if child_id(parent.id, token.id, node.id, token.attempt_group) == cid
                ),
                None,
            )
            if wait is None:
                return "not_waiting"
            token, node = wait
            completed = child.status == "completed"
            if isinstance(node, SubprocessNode):
                output = dict(child.context) if completed else {}
            else:
                output = (
                    {src: child.context.get(src) for src in node.out.values()} if completed else {}
                )
            failure = state_from_json(child.state).failure
            error = failure.cause if failure and failure.reason_code == "business_error" else None
            event = ChildEnded(
                at=now,
                token_id=token.id,
                node_id=node.id,
                attempt_group=token.attempt_group,
                child_id=cid,
                status=child.status,
                output=output,
                error=error,
            )
            try:
                await self._apply_in(uow, parent, model, state, event, actor=ENGINE, now=now)
            except InvalidTransition:
                return "refused"
            await uow.commit()
        self._wakeup()
        return "resumed"
