"""Operator repair of one token: move it to another node of the same version (skip ahead, or
redo a step with a new attempt group), in one unit of work with its history and audit entry.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from contracts.errors import ConcurrentModification, FieldError, NotFound, ValidationFailed
from contracts.kernel import Actor, AuditEntry
from contracts.workflow.types import InstanceView
from services.workflow.definition.messages import N_
from services.workflow.runtime.kernel.events import Repaired
from services.workflow.runtime.kernel.migration_plan import Blocker, repair_blockers
from services.workflow.runtime.ports import UnitOfWork
from services.workflow.runtime.services.applier import state_from_json
from services.workflow.runtime.services.engine import Engine
from services.workflow.runtime.services.views import instance_view

OpenDeadLetters = Callable[[UnitOfWork, str, str], Awaitable[list[str]]]
"""The open dead letters of an instance's token (``uow.dead_letters.open_of``)."""


async def repair(
    engine: Engine,
    uow_factory: Callable[[], UnitOfWork],
    open_dead_letters: OpenDeadLetters,
    instance_id: str,
    *,
    token_id: str,
    to_node: str,
    reason: str,
    actor: Actor,
    expected_version: int | None = None,
) -> InstanceView:
    """Move one token to another node of the same version (skip ahead, or redo a step with
    a new attempt group). ``reason`` is mandatory and kept in the audit entry only."""
    if not reason.strip():
        raise ValidationFailed("a repair needs a reason", instance_id=instance_id)
    now = engine.clock.now()
    async with uow_factory() as uow:
        record = await uow.instances.lock(instance_id)
        if record is None:
            raise NotFound(N_("unknown instance"), instance_id=instance_id)
        if expected_version is not None and record.row_version != expected_version:
            raise ConcurrentModification(
                "the instance changed since it was read",
                instance_id=instance_id,
                expected_version=expected_version,
            )
        model = await engine.model_of(uow, record)
        state = state_from_json(record.state)
        blockers = repair_blockers(model, state, token_id, to_node)
        if blockers:
            raise ValidationFailed(
                "the repair is not possible",
                instance_id=instance_id,
                errors=[_field(x) for x in blockers],
            )
        token = next(t for t in state.tokens if t.id == token_id)
        event = Repaired(
            at=now,
            token_id=token.id,
            from_node=token.node_id,
            to_node=to_node,
            attempt_group=token.attempt_group,
            actor=actor.id,
        )
        await uow.steps.cancel_open(record.id, token.id)
        letters = await open_dead_letters(uow, record.id, token.id)
        for letter in letters:
            await uow.dead_letters.resolve(letter, "repaired", now)
        applied = await engine.apply_in(uow, record, model, state, event, actor=actor, now=now)
        updated = applied.record
        await uow.audit.append(
            AuditEntry(
                action="workflow.instance.repaired",
                object_type="workflow_instance",
                object_id=record.id,
                actor=actor,
                reason=reason,
                correlation_id=record.id,
                before={
                    "status": record.status,
                    "nodes": record.current_nodes,
                    "token": token.id,
                    "node": token.node_id,
                },
                after={
                    "status": updated.status,
                    "nodes": updated.current_nodes,
                    "node": to_node,
                    "dead_letters": letters,
                },
            )
        )
        await uow.commit()
    engine.wakeup()
    return instance_view(updated, with_context=True)


def _field(blocker: Blocker) -> FieldError:
    return FieldError(
        path=f"tokens.{blocker.token_id}",
        code=blocker.code,
        message=f"Refused: {blocker.code} (node {blocker.node_id}, target {blocker.target}).",
    )
