"""The engine: every call is one unit of work that applies one event through ``decide()``.

The engine never calls the next node: it stores the decision (state, history, step runs, tasks,
timers, audit, outbox) in one transaction and lets delivery pick the work up after commit.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import datetime, tzinfo
from typing import Any

from contracts.errors import InvalidTransition, NotFound, ValidationFailed
from contracts.kernel import Actor, AuditEntry, Clock, IdGen
from contracts.workflow.types import (
    HistoryEntry,
    InstanceView,
    StartRequest,
    TaskView,
)
from services.workflow.definition import CompiledModel
from services.workflow.definition.messages import N_
from services.workflow.runtime.kernel.events import (
    Abandoned,
    Cancelled,
    Event,
    Migrated,
    Reprocessed,
    Signalled,
    Started,
    TimerFired,
)
from services.workflow.runtime.kernel.limits import DEFAULT_MAX_CONTEXT_BYTES, check_context_size
from services.workflow.runtime.kernel.naming import protocol_number, protocol_year
from services.workflow.runtime.kernel.state import InstanceState, Token, initial_state
from services.workflow.runtime.kernel.transitions import decide, replay_versions
from services.workflow.runtime.ports import (
    InstanceRecord,
    TimerRecord,
    UnitOfWork,
    VersionRecord,
)
from services.workflow.runtime.services.applier import (
    Applier,
    EagerClaim,
    decode_event,
    state_from_json,
)
from services.workflow.runtime.services.applying import Applied
from services.workflow.runtime.services.human_tasks import TaskService
from services.workflow.runtime.services.publishing import ModelCompiler, Publisher
from services.workflow.runtime.services.views import history_entry, instance_view, task_view

Wakeup = Callable[[], None]


class Engine:
    """Implements ``contracts.workflow.WorkflowEngine`` on the database."""

    human: TaskService | None = None
    """Task actions (claim, complete...); set by the composition root after construction."""

    def __init__(
        self,
        *,
        uow_factory: Callable[[], UnitOfWork],
        clock: Clock,
        ids: IdGen,
        compiler: ModelCompiler,
        applier: Applier,
        tenant: str = "default",
        wakeup: Wakeup | None = None,
        zone: tzinfo,
    ) -> None:
        self._uow: Callable[[], UnitOfWork] = uow_factory
        self.clock = clock
        self._ids = ids
        self.compiler = compiler
        self._applier = applier
        self._tenant = tenant
        self._zone = zone
        """The jurisdiction's time zone (``settings.timezone``): the protocol number's year."""
        self.publisher = Publisher(uow_factory, compiler)
        self._versions: dict[str, VersionRecord] = {}
        self.tick_concurrency = 1
        """Timers ``tick`` fires at once (set at composition; 1 on SQLite's single writer)."""
        self.max_context_bytes = DEFAULT_MAX_CONTEXT_BYTES
        """A start's context, as JSON, is refused past this (set at composition)."""
        self.wakeup: Wakeup = wakeup or (lambda: None)

    # --- reading ------------------------------------------------------------------------------

    async def _get(self, uow: UnitOfWork, instance_id: str) -> InstanceRecord:
        record = await uow.get_instance(instance_id)
        if record is None:
            raise NotFound(N_("unknown instance"), instance_id=instance_id)
        return record

    async def status(self, instance_id: str) -> InstanceView:
        async with self._uow() as uow:
            return instance_view(await self._get(uow, instance_id), with_context=True)

    async def history(self, instance_id: str) -> list[HistoryEntry]:
        async with self._uow() as uow:
            await self._get(uow, instance_id)
            return [history_entry(r) for r in await uow.history(instance_id)]

    async def tasks(self, instance_id: str) -> list[TaskView]:
        async with self._uow() as uow:
            record = await self._get(uow, instance_id)
            return [task_view(t, record.protocol) for t in await uow.tasks(instance_id)]

    async def model_of(self, uow: UnitOfWork, record: InstanceRecord) -> CompiledModel:
        """The compiled model of the instance's pinned version (versions never change, so a
        model is read and compiled once per process)."""
        version = self._versions.get(record.version_id)
        if version is None:
            version = await uow.get_version(record.version_id)
            assert version is not None, "an instance always pins an existing version"
            self._versions[record.version_id] = version
        return self.compiler.for_version(version)

    async def _latest(self, uow: UnitOfWork, key: str) -> VersionRecord | None:
        """The newest published version; its schema is read once per process (a published
        version never changes)."""
        version_id = await uow.latest_version_id(key)
        if version_id is None:
            return None
        version = self._versions.get(version_id)
        if version is None:
            version = await uow.get_version(version_id)
            if version is not None:
                self._versions[version_id] = version
        return version

    async def events(self, instance_id: str) -> list[Event]:
        """The instance's event log, in order (what ``replay`` folds over)."""
        async with self._uow() as uow:
            await self._get(uow, instance_id)
            return [
                decode_event(h.data["event"])
                for h in await uow.history(instance_id)
                if "event" in h.data
            ]

    async def tokens(self, instance_id: str) -> tuple[Token, ...]:
        """The instance's tokens as stored (what a repair may move); ``NotFound`` if unknown."""
        async with self._uow() as uow:
            record = await self._get(uow, instance_id)
        return tuple(state_from_json(record.state).tokens)

    async def replayed_state(self, instance_id: str) -> tuple[InstanceState, InstanceState]:
        """(stored state, state rebuilt from history): equal for every healthy instance.

        A migrated instance's log spans versions: each segment replays with the model of the
        version it ran on (the ``migrated`` events name them)."""
        events = await self.events(instance_id)
        migrations = [e for e in events if isinstance(e, Migrated)]
        async with self._uow() as uow:
            record = await self._get(uow, instance_id)
            first = migrations[0].from_version_id if migrations else record.version_id
            models = {}
            for version_id in {first, *(m.to_version_id for m in migrations)}:
                version = await uow.get_version(version_id)
                assert version is not None, "history only names published versions"
                models[version_id] = self.compiler.for_version(version)
        stored = state_from_json(record.state)
        return stored, replay_versions(models, first, events)

    # --- starting -----------------------------------------------------------------------------

    async def start(self, request: StartRequest) -> InstanceView:
        check_context_size(request.context, self.max_context_bytes)
        now = self.clock.now()
        async with self._uow() as uow:
            if request.version is None:
                version = await self._latest(uow, request.definition_key)
            else:
                version = await uow.version_number(request.definition_key, request.version)
            if version is None:
                raise NotFound(
                    "no published version of this workflow",
                    definition_key=request.definition_key,
                    version=request.version,
                )
            model = self.compiler.for_version(version)
            defn = model.definition
            year = protocol_year(now, self._zone)
            number = await uow.next_protocol_number(defn.protocol_prefix, year)
            actor_id = request.actor.id if request.actor.kind == "user" else None
            record = InstanceRecord(
                id=str(self._ids.new_id()),
                tenant=self._tenant,
                version_id=version.id,
                definition_key=defn.key,
                definition_version=version.version,
                protocol=protocol_number(defn.protocol_prefix, now, number, self._zone),
                status="created",
                current_nodes=[],
                state={},
                context={},
                subject_type=request.subject.type if request.subject else None,
                subject_id=request.subject.id if request.subject else None,
                business_key=request.business_key,
                author_id=actor_id,
                due_at=None,
                started_at=now,
                updated_at=now,
                ended_at=None,
                row_version=0,
            )
            event = Started(at=now, input=dict(request.context), actor=actor_id)
            applied = await self.apply_in(
                uow, record, model, initial_state(), event, actor=request.actor, now=now, new=True
            )
            record = applied.record
            await uow.audit(
                AuditEntry(
                    action="workflow.instance.started",
                    object_type="workflow_instance",
                    object_id=record.id,
                    actor=request.actor,
                    after={
                        "definition": defn.key,
                        "version": version.version,
                        "protocol": record.protocol,
                        "status": record.status,
                    },
                    correlation_id=record.id,
                )
            )
            await uow.commit()
        self.wakeup()
        return instance_view(record, with_context=True)

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
                record = await uow.lock_instance(instance_id)
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
                    await uow.audit(
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
            if await uow.get_instance(instance_id) is None:
                return
            await uow.audit(
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

    async def cancel(self, instance_id: str, *, reason: str, actor: Actor) -> InstanceView:
        if not reason.strip():
            raise ValidationFailed("a cancellation needs a reason", instance_id=instance_id)

        async def close_dead_letters(uow: UnitOfWork, record: InstanceRecord) -> None:
            # A cancelled instance has no step left to reprocess: its open dead letters close
            # with it, in the same transaction, so none offers a reprocess that must fail.
            for letter in await uow.resolve_open_dead_letters(
                record.id, "cancelled", self.clock.now()
            ):
                await uow.audit(
                    AuditEntry(
                        action="workflow.dead_letter.cancelled",
                        object_type="workflow_dead_letter",
                        object_id=letter,
                        actor=actor,
                        after={"status": "cancelled", "instance": record.id},
                        correlation_id=record.id,
                    )
                )

        record = await self.advance(
            instance_id,
            lambda r, s, now: Cancelled(at=now, reason="cancelled", actor=actor.id),
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
            await uow.complete_signalled_tasks(record.id, name, actor.id, self.clock.now())

        record = await self.advance(
            instance_id,
            lambda r, s, now: Signalled(at=now, name=name, payload=payload, outcome=outcome),
            actor=actor,
            audit_action="workflow.instance.signalled",
            before_apply=close_task,
        )
        return instance_view(record, with_context=True)

    async def fire_timer(self, timer_row_id: str, instance_id: str) -> bool:
        """Fire one due timer exactly once, even with several ticks running at the same time.

        The instance is locked before the timer: every other change to timers is made while
        applying an event, under the instance's lock, and firing a timer can cancel the
        instance's other timers — taking the timer first deadlocked against a tick firing
        another timer of the same instance."""
        now = self.clock.now()
        async with self._uow() as uow:
            record = await uow.lock_instance(instance_id)
            if record is None:
                return False
            timer = await uow.lock_timer(timer_row_id)
            if timer is None or timer.status != "pending" or timer.due_at > now:
                return False
            if not await uow.mark_timer_fired(timer.id, now):
                return False
            model = await self.model_of(uow, record)
            state = state_from_json(record.state)
            event = TimerFired(
                at=now,
                token_id=timer.token_id,
                node_id=timer.node_id,
                attempt_group=timer.attempt_group,
                timer_id=timer.timer_id,
            )
            try:
                await self.apply_in(
                    uow, record, model, state, event, actor=Actor.system("timer"), now=now
                )
            except InvalidTransition:
                # The token moved on before the timer fired (a race the tick lost): the timer
                # is spent, nothing else changes.
                await uow.commit()
                return False
            await uow.commit()
        self.wakeup()
        return True

    async def tick(self, *, limit: int = 500) -> int:
        """Fire every timer due now (in batches); returns how many fired. Up to
        ``tick_concurrency`` timers fire at once, each in its own transaction."""
        fired = 0
        gate = asyncio.Semaphore(self.tick_concurrency)

        async def fire(timers: list[TimerRecord]) -> int:
            # One instance's timers one after the other: they would only wait for each other.
            async with gate:
                return sum([await self.fire_timer(t.id, t.instance_id) for t in timers])

        while True:
            async with self._uow() as uow:
                due = await uow.due_timers(self.clock.now(), limit)
            if not due:
                return fired
            by_instance: dict[str, list[TimerRecord]] = {}
            for timer in due:
                by_instance.setdefault(timer.instance_id, []).append(timer)
            results = await asyncio.gather(*(fire(group) for group in by_instance.values()))
            batch = sum(results)
            fired += batch
            if batch == 0:
                return fired

    # --- human tasks --------------------------------------------------------------------------

    async def claim(
        self, task_id: str, *, actor: Actor, idempotency_key: str | None = None
    ) -> TaskView:
        """Authorised, idempotent and audited: see ``runtime.human.TaskService``."""
        return await self._human().claim(task_id, actor=actor, idempotency_key=idempotency_key)

    def _human(self) -> TaskService:
        if self.human is None:
            raise RuntimeError("the task service is wired by the composition root")
        return self.human

    async def _reload_task(self, task_id: str) -> TaskView:
        async with self._uow() as uow:
            task = await uow.lock_task(task_id)
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
            await uow.audit(
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
        """Put a dead-lettered step back on its node: same instance, number, trail and key.
        ``reason`` (the pages ask for one) is kept in the audit entry only."""
        async with self._uow() as uow:
            letter = await uow.get_dead_letter(dead_letter_id)
        if letter is None:
            raise NotFound(N_("unknown dead letter"), dead_letter_id=dead_letter_id)
        if letter["status"] != "open":
            raise InvalidTransition(
                "the dead letter was already handled", dead_letter_id=dead_letter_id
            )

        async def resolve(uow: UnitOfWork, record: InstanceRecord) -> None:
            await uow.resolve_dead_letter(dead_letter_id, "reprocessed", self.clock.now())

        record = await self.advance(
            letter["instance_id"],
            lambda r, s, now: Reprocessed(
                at=now,
                token_id=letter["token_id"],
                node_id=letter["node_id"],
                attempt_group=letter["attempt_group"],
                actor=actor.id,
            ),
            actor=actor,
            audit_action="workflow.dead_letter.reprocessed",
            reason=reason,
            before_commit=resolve,
        )
        return instance_view(record, with_context=True)

    async def abandon(
        self,
        dead_letter_id: str,
        *,
        actor: Actor,
        reason: str,
        before_commit: Callable[[UnitOfWork], Awaitable[None]] | None = None,
    ) -> InstanceView:
        """Give up on a dead-lettered step: the instance fails and its saga compensates. A
        letter already handled (reprocessed, abandoned, closed with its case) is refused with
        ``code`` ``dead_letter_handled``. ``before_commit`` runs in the same transaction (a
        background operation records its item there, so the two commit together)."""
        async with self._uow() as uow:
            letter = await uow.get_dead_letter(dead_letter_id)
        if letter is None:
            raise NotFound(N_("unknown dead letter"), dead_letter_id=dead_letter_id)
        if letter["status"] != "open":
            raise InvalidTransition(
                "the dead letter was already handled",
                dead_letter_id=dead_letter_id,
                code="dead_letter_handled",
            )

        async def resolve(uow: UnitOfWork, record: InstanceRecord) -> None:
            await uow.resolve_dead_letter(dead_letter_id, "abandoned", self.clock.now())
            if before_commit is not None:
                await before_commit(uow)

        record = await self.advance(
            letter["instance_id"],
            lambda r, s, now: Abandoned(
                at=now,
                token_id=letter["token_id"],
                node_id=letter["node_id"],
                attempt_group=letter["attempt_group"],
                actor=actor.id,
            ),
            actor=actor,
            audit_action="workflow.dead_letter.abandoned",
            reason=reason,
            before_commit=resolve,
        )
        return instance_view(record, with_context=True)
