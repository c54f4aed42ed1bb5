"""Turns a ``Decision`` into rows, inside the caller's unit of work.

Nothing here commits: the engine commits once, after the new state, the history, the step runs,
tasks and timers, the audit entries and the outbox rows were all written. Effects leave only
through the outbox.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import msgspec

from contracts.kernel import Actor, AuditEntry, IdGen
from contracts.workflow.types import SubjectRef, TransitionEvent
from services.workflow.calendar import Calendar
from services.workflow.definition import CompiledModel
from services.workflow.runtime.kernel import naming
from services.workflow.runtime.kernel.effects import (
    CancelTimers,
    CloseTasks,
    DeadLetter,
    Decision,
    EscalateTask,
    InstanceFinished,
    OpenTask,
    RunCompensation,
    ScheduleStep,
    StartTimer,
    Transitioned,
    VoteRecorded,
)
from services.workflow.runtime.kernel.events import Event, event_type
from services.workflow.runtime.kernel.naming import SUBJECT_TOPIC, idempotency_key
from services.workflow.runtime.kernel.state import TERMINAL, InstanceState
from services.workflow.runtime.ports import (
    HistoryRecord,
    InstanceRecord,
    StepRunRecord,
    UnitOfWork,
)
from services.workflow.runtime.ports.telemetry import Telemetry
from services.workflow.runtime.services.applier_tasks import FormPinner, TaskWriter
from services.workflow.runtime.services.applier_timers import TimerWriter
from services.workflow.runtime.services.applying import EagerClaim
from services.workflow.runtime.services.legal_time import LegalTime

HISTORY_STRIDE = 1000
"""History numbers of the event that brings an instance to version v are v*1000, v*1000+1..."""


def encode_event(event: Event) -> dict[str, Any]:
    """The event as JSON-ready data (what history keeps for replay)."""
    data: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(event))
    return data


def decode_event(data: dict[str, Any]) -> Event:
    return msgspec.json.decode(msgspec.json.encode(data), type=Event)


def state_to_json(state: InstanceState) -> dict[str, Any]:
    data: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(state))
    return data


def state_from_json(data: dict[str, Any]) -> InstanceState:
    return msgspec.json.decode(msgspec.json.encode(data), type=InstanceState)


class Applier:
    def __init__(
        self,
        ids: IdGen,
        calendar: Calendar,
        legal: LegalTime | None = None,
        *,
        telemetry: Telemetry,
        pin_form: FormPinner,
        pools: frozenset[str] = frozenset(),
    ) -> None:
        self._ids = ids
        self._pools = pools  # tenants with worker pools of their own
        self._telemetry = telemetry
        self._calendar = calendar
        self._legal = legal or LegalTime(calendar, {})
        self._tasks = TaskWriter(self._legal)
        self._timers = TimerWriter(calendar, self._legal)
        self.pin_form = pin_form
        """Turns a task's ``form`` reference into the exact ``key@version`` published when the
        task opens, so a later version never changes what it is answered with."""

    def _id(self) -> str:
        return str(self._ids.new_id())

    async def apply(
        self,
        uow: UnitOfWork,
        record: InstanceRecord,
        model: CompiledModel,
        event: Event,
        decision: Decision,
        *,
        actor: Actor | None,
        now: datetime,
        eager: EagerClaim | None = None,
        new: bool = False,
    ) -> InstanceRecord:
        """Write what ``decision`` says. ``new``: ``record`` is not stored yet (a start); its
        row is inserted already in the decided state instead of inserted, then updated."""
        state = decision.new_state
        if new:
            first_due = min(
                (self._timers.due(e) for e in decision.effects if isinstance(e, StartTimer)),
                default=None,
            )
            updated = self._decided(record, state, now, first_due)
            await uow.instances.add(updated)
        # History goes first: its rows are numbered from the new state version (each applied
        # event bumps it by exactly one, so no read of the last number is needed), and a number
        # already taken means this decision was made on a stale read of the instance — the
        # store reports that before anything else is written.
        if not decision.unchanged:
            logged = decision.logged or event
            await uow.history.append_rows(
                record.id, self._history(state, logged, decision, actor, now)
            )
        # A migration that moves a waiting person's work to another node closes the old task and
        # opens one on the new node: the new one keeps when the work arrived (the past stays).
        carried: dict[str, datetime] = {}
        for effect in decision.effects:
            if isinstance(effect, Transitioned):
                await self._announce(uow, record, model, state, effect, now)
            elif isinstance(effect, ScheduleStep):
                await self._schedule(
                    uow,
                    record,
                    effect.token_id,
                    effect.node_id,
                    effect.attempt_group,
                    effect.queue,
                    effect.kind,
                    model,
                    state,
                    now,
                    eager,
                    fresh=effect.fresh,
                    attempt=effect.attempt,
                    available_at=effect.available_at,
                )
            elif isinstance(effect, RunCompensation):
                await self._schedule(
                    uow,
                    record,
                    "saga",
                    effect.node_id,
                    effect.attempt_group,
                    effect.queue,
                    "compensation",
                    model,
                    state,
                    now,
                )
            elif isinstance(effect, OpenTask):
                since = carried.pop(effect.token_id, now)
                await self._tasks.open(
                    uow, record, model, effect, now, since, self._id(), self.pin_form
                )
            elif isinstance(effect, CloseTasks):
                if effect.reason == "migrated":
                    carried.update(await self._tasks.opened_at(uow, record.id, effect))
                await uow.tasks.close(
                    record.id,
                    effect.token_id,
                    effect.node_id,
                    effect.attempt_group,
                    reason=effect.reason,
                    now=now,
                )
            elif isinstance(effect, EscalateTask):
                await self._tasks.escalate(uow, record, effect)
            elif isinstance(effect, StartTimer):
                await self._timers.start(uow, record, effect, now, self._id)
            elif isinstance(effect, CancelTimers):
                await uow.timers.cancel(
                    record.id,
                    effect.token_id,
                    effect.node_id,
                    effect.attempt_group,
                    effect.timer_ids,
                )
            elif isinstance(effect, VoteRecorded):
                await uow.audit.append(
                    AuditEntry(
                        action="workflow.vote.recorded",
                        object_type="workflow_instance",
                        object_id=record.id,
                        actor=Actor(id=effect.actor),
                        after={"node": effect.node_id, "outcome": effect.outcome},
                        correlation_id=record.id,
                    )
                )
            elif isinstance(effect, DeadLetter):
                await uow.dead_letters.add(
                    {
                        "instance_id": record.id,
                        "step_run_id": effect.step_run_id,
                        "token_id": effect.token_id,
                        "node_id": effect.node_id,
                        "kind": effect.kind,
                        "attempt_group": effect.attempt_group,
                        "reason": effect.reason,
                        "last_error": dict(effect.last_error),
                        "payload": effect.payload,
                        "attempts": effect.attempts,
                        "created_at": now,
                    }
                )
            elif isinstance(effect, InstanceFinished):
                await uow.instances.cancel_open_work(record.id, now)
                if record.due_at is not None or any(
                    isinstance(e, StartTimer) for e in decision.effects
                ):
                    # ``due_at`` is the instance's next pending timer: none pending, none to
                    # cancel (a timer this very decision started is still cancelled).
                    await uow.timers.cancel(record.id, None, None, None, None)
        if decision.unchanged:
            return record
        if not new:
            due = await self._timers.next_due(uow, record, state, decision)
            updated = self._decided(record, state, now, due)
            await uow.instances.update(updated, expected_version=record.row_version)
        if updated.ended_at is not None and record.ended_at is None:
            # Counted when the finishing transaction is written; a rollback after this point
            # would over-count by one (an after-commit hook would be exact).
            self._telemetry.instance_finished(
                workflow_type=record.definition_key,
                status=updated.status,
                cycle_time_s=(now - record.started_at).total_seconds(),
            )
        return updated

    @staticmethod
    def _decided(
        record: InstanceRecord, state: InstanceState, now: datetime, due_at: datetime | None
    ) -> InstanceRecord:
        return msgspec.structs.replace(
            record,
            status=state.status,
            current_nodes=sorted({t.node_id for t in state.tokens}),
            state=state_to_json(state),
            context=dict(state.context),
            updated_at=now,
            ended_at=now if state.status in TERMINAL else None,
            due_at=due_at,
            row_version=state.version,
        )

    @staticmethod
    def _history(
        state: InstanceState, event: Event, decision: Decision, actor: Actor | None, now: datetime
    ) -> list[HistoryRecord]:
        seq = state.version * HISTORY_STRIDE
        history = [
            HistoryRecord(
                seq=seq,
                at=now,
                event=event_type(event),
                from_node=None,
                to_node=None,
                actor=actor,
                data={"event": encode_event(event), "state_version": state.version},
            )
        ]
        for effect in decision.effects:
            if isinstance(effect, Transitioned):
                seq += 1
                history.append(
                    HistoryRecord(
                        seq=seq,
                        at=now,
                        event=f"transition.{effect.cause}",
                        from_node=effect.from_node,
                        to_node=effect.to_node,
                        actor=actor,
                        data={"token": effect.token_id},
                    )
                )
        return history

    async def _schedule(
        self,
        uow: UnitOfWork,
        record: InstanceRecord,
        token_id: str,
        node_id: str,
        attempt_group: int,
        queue: str,
        kind: str,
        model: CompiledModel,
        state: InstanceState,
        now: datetime,
        eager: EagerClaim | None = None,
        *,
        fresh: bool = False,
        attempt: int | None = None,
        available_at: datetime | None = None,
    ) -> None:
        if attempt is not None:
            previous = attempt - 1
        elif fresh:
            previous = 0
        else:
            previous = await uow.steps.last_attempt(record.id, node_id, kind, attempt_group)
        due = available_at or now
        # The broker queue this step is sent to; the step run keeps the definition's queue.
        routed = naming.routed_queue(queue, record.tenant, self._pools)
        take = (
            eager is not None
            and eager.taken is None
            and kind == "step"
            and previous == 0
            and routed in eager.queues
        )
        step = StepRunRecord(
            id=self._id(),
            instance_id=record.id,
            token_id=token_id,
            node_id=node_id,
            kind=kind,
            queue=queue,
            attempt_group=attempt_group,
            attempt=previous + 1,
            idempotency_key=idempotency_key(record.id, node_id, attempt_group, kind),
            status="scheduled",
            lease_owner=None,
            lease_expires_at=None,
            available_at=due,
            input=None,
            output=None,
            error=None,
            checkpoint=None,
            created_at=now,
            started_at=None,
            finished_at=None,
        )
        if take:
            assert eager is not None
            node = model.nodes[node_id]
            lease = timedelta(seconds=node.failure.timeout_s) + eager.lease_margin
            step = msgspec.structs.replace(
                step,
                status="running",
                lease_owner=eager.owner,
                lease_expires_at=now + lease,
                started_at=now,
                input={k: state.context.get(k) for k in node.consumes},
            )
            eager.taken = step
            await uow.steps.add(step)
            return
        await uow.steps.add(step)
        await uow.outbox.enqueue(
            naming.step_topic(routed), step.id, {"step_run_id": step.id}, available_at=due
        )

    async def _announce(
        self,
        uow: UnitOfWork,
        record: InstanceRecord,
        model: CompiledModel,
        state: InstanceState,
        effect: Transitioned,
        now: datetime,
    ) -> None:
        """Queue the transition for the module's subject listener (delivered after commit)."""
        if record.subject_type is None or record.subject_id is None:
            return
        to_node = model.nodes.get(effect.to_node) if effect.to_node else None
        public = to_node.public.label if to_node is not None and to_node.public else None
        event = TransitionEvent(
            instance_id=record.id,
            protocol=record.protocol,
            definition_key=record.definition_key,
            subject=SubjectRef(type=record.subject_type, id=record.subject_id),
            event=effect.cause,
            from_node=effect.from_node,
            to_node=effect.to_node,
            status=state.status,
            at=now,
            public_label=public,
        )
        await uow.outbox.enqueue(
            SUBJECT_TOPIC,
            record.id,
            msgspec.json.decode(msgspec.json.encode(event)),
            available_at=now,
        )
