"""The engine: every call is one unit of work that applies one event through ``decide()``.

The engine never calls the next node: it stores the decision (state, history, step runs, tasks,
timers, audit, outbox) in one transaction and lets delivery pick the work up after commit.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, tzinfo
from typing import Any

from contracts.errors import InvalidTransition, NotFound, ValidationFailed
from contracts.kernel import Actor, AuditEntry, Clock, IdGen
from contracts.workflow.types import InstanceView, StartRequest, TaskView
from services.workflow.definition import CompiledModel
from services.workflow.definition.messages import N_
from services.workflow.numbering import DEFAULT_NUMBERING, Numbering, TenantNumbering
from services.workflow.runtime.kernel.events import Cancelled, Event, Signalled
from services.workflow.runtime.kernel.limits import DEFAULT_MAX_CONTEXT_BYTES, check_context_size
from services.workflow.runtime.kernel.state import InstanceState
from services.workflow.runtime.kernel.transitions import decide
from services.workflow.runtime.ports import InstanceRecord, UnitOfWork
from services.workflow.runtime.services.applier import Applier, state_from_json
from services.workflow.runtime.services.applying import Applied, EagerClaim
from services.workflow.runtime.services.calls import Calls
from services.workflow.runtime.services.dead_letter_actions import (
    DeadLetterActions,
    close_open_letters,
)
from services.workflow.runtime.services.engine_reads import EngineReads
from services.workflow.runtime.services.human_tasks import TaskService
from services.workflow.runtime.services.publishing import ModelCompiler, Publisher
from services.workflow.runtime.services.starting import Starter
from services.workflow.runtime.services.timer_firing import TimerFiring
from services.workflow.runtime.services.views import instance_view, task_view

Wakeup = Callable[[], None]


class Engine(EngineReads):
    """Implements ``contracts.workflow.WorkflowEngine`` on the database."""

    def __init__(
        self,
        *,
        uow_factory: Callable[[], UnitOfWork],
        clock: Clock,
        ids: IdGen,
        compiler: ModelCompiler,
        applier: Applier,
        wakeup: Wakeup,
        human: Callable[[Engine], TaskService] | None = None,
        tenant: str = "default",
        zone: tzinfo,
        numbering: Numbering | TenantNumbering = DEFAULT_NUMBERING,
        tick_concurrency: int,
        max_context_bytes: int = DEFAULT_MAX_CONTEXT_BYTES,
    ) -> None:
        super().__init__(uow_factory, compiler)
        self.clock = clock
        self._ids = ids
        self._applier = applier
        self._tenant = tenant
        self._zone = zone
        """The jurisdiction's time zone (``settings.timezone``): the protocol number's year."""
        numberings = (
            numbering
            if isinstance(numbering, TenantNumbering)
            else TenantNumbering(numbering, tenant=tenant)
        )
        self.numbering = numberings.shared
        """How protocol numbers are made (``TRAMITA_WF_PROTOCOL_FORMAT``) and typed ones read
        (a tenant's own unit, ``TRAMITA_WF_TENANT_PROTOCOL_UNITS``, reads the same way)."""
        self.publisher = Publisher(uow_factory, compiler, tenant=tenant)
        self.human = None if human is None else human(self)
        """Task actions (claim, complete...), built by ``human`` on this engine's ``apply_in``
        (without it, the task actions fail loudly)."""
        self.tick_concurrency = tick_concurrency
        """Timers ``tick`` fires at once (1 on SQLite's single writer)."""
        self.max_context_bytes = max_context_bytes
        """A start's context, as JSON, is refused past this."""
        self.wakeup: Wakeup = wakeup
        self._timers = TimerFiring(
            uow_factory=uow_factory,
            clock=clock,
            model_of=self.model_of,
            apply_in=self.apply_in,
            wakeup=lambda: self.wakeup(),
        )
        self._starter = Starter(
            ids=ids,
            compiler=compiler,
            latest=self._latest,
            apply_in=self.apply_in,
            tenant=tenant,
            zone=zone,
            numbering=numberings,
        )
        self._calls = Calls(
            uow_factory=uow_factory,
            clock=clock,
            model_of=self.model_of,
            start_in=self._starter.start_in,
            apply_in=self.apply_in,
            wakeup=lambda: self.wakeup(),
        )
        self._dead_letters = DeadLetterActions(
            uow_factory=uow_factory, clock=clock, advance=self.advance
        )

    # --- starting -----------------------------------------------------------------------------

    async def start(self, request: StartRequest) -> InstanceView:
        check_context_size(request.context, self.max_context_bytes)
        now = self.clock.now()
        async with self._uow() as uow:
            record = await self._starter.start_in(uow, request, now)
            await uow.commit()
        self.wakeup()
        return instance_view(record, with_context=True)

    async def child_returned(self, child_id: str) -> str:
        """A called child ended: resume its parent (``Calls.returned``)."""
        return await self._calls.returned(child_id)

    # --- advancing ----------------------------------------------------------------------------

    async def apply_in(
        self,
        uow: UnitOfWork,
        record: InstanceRecord,
        model: CompiledModel,
        state: InstanceState,
        event: Event,
        *,
        actor: Actor | None,
        now: datetime,
        eager: EagerClaim | None = None,
        new: bool = False,
    ) -> Applied:
        """Decide ``event`` on ``state`` with ``model`` (the kernel's ``decide``) and write the
        decision through the applier, inside the caller's unit of work (which commits).

        ``new``: ``record`` is not stored yet (a start). A refused event raises before anything
        is written."""
        decision = decide(model, state, event, now)
        updated = await self._applier.apply(
            uow, record, model, event, decision, actor=actor, now=now, eager=eager, new=new
        )
        await self._calls.after(uow, record, state, model, decision, updated, now)
        return Applied(updated, decision)

    async def advance(
        self,
        instance_id: str,
        make_event: Callable[[InstanceRecord, InstanceState, datetime], Event],
        *,
        actor: Actor | None,
        audit_action: str | None = None,
        reason: str | None = None,
        before_commit: Callable[[UnitOfWork, InstanceRecord], Any] | None = None,
        before_apply: Callable[[UnitOfWork, InstanceRecord], Any] | None = None,
    ) -> InstanceRecord:
        """Lock the instance, build the event from what is stored, decide, apply, commit.

        A refused event raises ``InvalidTransition`` and is recorded in the audit log in a
        transaction of its own (the refused one rolls back).
        """
        now = self.clock.now()
        try:
            async with self._uow() as uow:
                record = await uow.instances.lock(instance_id)
                if record is None:
                    raise NotFound(N_("unknown instance"), instance_id=instance_id)
                model = await self.model_of(uow, record)
                state = state_from_json(record.state)
                event = make_event(record, state, now)
                if before_apply is not None:
                    await before_apply(uow, record)
                applied = await self.apply_in(
                    uow, record, model, state, event, actor=actor, now=now
                )
                updated = applied.record
                if before_commit is not None:
                    await before_commit(uow, updated)
                if audit_action is not None and actor is not None:
                    await uow.audit.append(
                        AuditEntry(
                            action=audit_action,
                            object_type="workflow_instance",
                            object_id=instance_id,
                            actor=actor,
                            before={"status": record.status, "nodes": record.current_nodes},
                            after={"status": updated.status, "nodes": updated.current_nodes},
                            reason=reason,
                            correlation_id=instance_id,
                        )
                    )
                await uow.commit()
        except InvalidTransition as refused:
            await self._record_refusal(instance_id, refused, actor)
            raise
        self.wakeup()
        return updated

    async def _record_refusal(
        self, instance_id: str, refused: InvalidTransition, actor: Actor | None
    ) -> None:
        async with self._uow() as uow:
            if await uow.instances.get(instance_id) is None:
                return
            await uow.audit.append(
                AuditEntry(
                    action="workflow.transition.refused",
                    object_type="workflow_instance",
                    object_id=instance_id,
                    actor=actor or Actor.system("engine"),
                    after={k: v for k, v in refused.fields.items() if isinstance(v, str | int)},
                    reason=refused.detail,
                    correlation_id=instance_id,
                )
            )
            await uow.commit()

    async def cancel(
        self, instance_id: str, *, reason: str, actor: Actor, compensate: bool = False
    ) -> InstanceView:
        if not reason.strip():
            raise ValidationFailed("a cancellation needs a reason", instance_id=instance_id)

        async def close_dead_letters(uow: UnitOfWork, record: InstanceRecord) -> None:
            await close_open_letters(uow, record.id, actor, self.clock.now())

        record = await self.advance(
            instance_id,
            lambda r, s, now: Cancelled(
                at=now, reason="cancelled", actor=actor.id, compensate=compensate
            ),
            actor=actor,
            audit_action="workflow.instance.cancelled",
            reason=reason,
            before_commit=close_dead_letters,
        )
        return instance_view(record, with_context=True)

    async def signal(
        self,
        instance_id: str,
        name: str,
        *,
        payload: dict[str, Any],
        actor: Actor,
        outcome: str | None = None,
    ) -> InstanceView:
        async def close_task(uow: UnitOfWork, record: InstanceRecord) -> None:
            await uow.tasks.complete_signalled(record.id, name, actor.id, self.clock.now())

        record = await self.advance(
            instance_id,
            lambda r, s, now: Signalled(at=now, name=name, payload=payload, outcome=outcome),
            actor=actor,
            audit_action="workflow.instance.signalled",
            before_apply=close_task,
        )
        return instance_view(record, with_context=True)

    async def fire_timer(self, timer_row_id: str, instance_id: str) -> bool:
        """Fire one due timer exactly once (``TimerFiring.fire_timer``)."""
        return await self._timers.fire_timer(timer_row_id, instance_id)

    async def tick(self, *, limit: int = 500) -> int:
        """Fire every timer due now; up to ``tick_concurrency`` at once."""
        return await self._timers.tick(limit=limit, concurrency=self.tick_concurrency)

    def _human(self) -> TaskService:
        if self.human is None:
            raise RuntimeError("the task service is wired by the composition root")
        return self.human

    # --- human tasks --------------------------------------------------------------------------

    async def claim(
        self, task_id: str, *, actor: Actor, idempotency_key: str | None = None
    ) -> TaskView:
        """Authorised, idempotent and audited: see ``runtime.human.TaskService``."""
        return await self._human().claim(task_id, actor=actor, idempotency_key=idempotency_key)

    async def _reload_task(self, task_id: str) -> TaskView:
        async with self._uow() as uow:
            task = await uow.tasks.lock(task_id)
            if task is None:
                raise NotFound(N_("unknown task"), task_id=task_id)
            record = await self._get(uow, task.instance_id)
            return task_view(task, record.protocol)

    async def complete(
        self,
        task_id: str,
        *,
        actor: Actor,
        outcome: str | None = None,
        data: dict[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> TaskView:
        """Validates the form, stores the snapshot and advances the instance in one
        transaction (``runtime.human.TaskService.complete``); refusals are audited there."""
        return await self._human().complete(
            task_id, actor=actor, outcome=outcome, data=data, idempotency_key=idempotency_key
        )

    async def note(
        self,
        instance_id: str,
        *,
        action: str,
        actor: Actor,
        reason: str | None,
        after: dict[str, Any] | None = None,
    ) -> None:
        """Audit an act about an instance that changes none of its state (e.g. issuing the
        citizen's link), in a unit of work of its own; ``NotFound`` for an unknown instance."""
        async with self._uow() as uow:
            record = await self._get(uow, instance_id)
            await uow.audit.append(
                AuditEntry(
                    action=action,
                    object_type="workflow_instance",
                    object_id=record.id,
                    actor=actor,
                    after=after,
                    reason=reason,
                    correlation_id=record.id,
                )
            )
            await uow.commit()

    # --- dead letters -------------------------------------------------------------------------

    async def reprocess(
        self, dead_letter_id: str, *, actor: Actor, reason: str | None = None
    ) -> InstanceView:
        """Put a dead-lettered step back on its node (``DeadLetterActions.reprocess``)."""
        return await self._dead_letters.reprocess(dead_letter_id, actor=actor, reason=reason)

    async def abandon(
        self,
        dead_letter_id: str,
        *,
        actor: Actor,
        reason: str,
        before_commit: Callable[[UnitOfWork], Awaitable[None]] | None = None,
    ) -> InstanceView:
        """Give up on a dead-lettered step (``DeadLetterActions.abandon``)."""
        return await self._dead_letters.abandon(
            dead_letter_id, actor=actor, reason=reason, before_commit=before_commit
        )
