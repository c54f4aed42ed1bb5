"""The pure transition function: ``decide(model, state, event, now) -> Decision``.

No I/O, no clock, no randomness: the same inputs give the same decision, token ids included,
which is what makes :func:`replay` able to rebuild an instance's state from its event log and
lets the engine apply a decision inside one transaction. Refused events raise
:class:`InvalidTransition` (or :class:`ValidationFailed` for malformed data, :class:`Forbidden`
for separation of duties) carrying identifiers only, never context values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

from services.workflow.definition.compiler import CompiledModel
from services.workflow.definition.model import StartNode

from .advance import Run
from .call_rules import child_ended
from .effects import Decision, InstanceFinished
from .events import (
    Abandoned,
    Cancelled,
    ChildEnded,
    CompensationDone,
    Event,
    Migrated,
    Repaired,
    Reprocessed,
    Signalled,
    Started,
    StepErrored,
    StepFailed,
    StepFailedTerminal,
    StepSucceeded,
    TaskCompleted,
    TimerFired,
)
from .guards import addressed_token, check_keys, refuse
from .retries import attempt_failed
from .state import TERMINAL, InstanceState, Token, initial_state
from .steps import abandoned, reprocessed, step_errored, step_failed, step_succeeded
from .task_rules import signalled, task_completed, timer_fired


def _started(run: Run, state: InstanceState, event: Started) -> None:
    start = run.m.nodes[run.m.start]
    assert isinstance(start, StartNode)
    check_keys(event.input, start.produces, "input", start.id, required=True)
    run.context = dict(event.input)
    run.author = event.actor
    run.catches = event.catches
    run.spawn("t", start.id, None, "started")


def _cancelled(run: Run, state: InstanceState, event: Cancelled) -> None:
    if event.compensate:
        run.compensate_then_end("cancelled", None, "cancelled")
    else:
        run.terminate("cancelled", node_id=None, reason=event.reason)


def _compensation_done(run: Run, state: InstanceState, event: CompensationDone) -> None:
    head = run.compensations[0] if run.compensations else None
    if head is None or (head.node_id, head.attempt_group) != (event.node_id, event.attempt_group):
        refuse("unexpected_compensation", state, event, node_id=event.node_id)
    run.compensations.pop(0)
    if run.compensations:
        run.run_next_compensation()
        return
    if run.ending is not None:
        run.end_compensated()
        return
    failure = run.failure
    run.status = "failed"
    run.emit(
        InstanceFinished(
            status="failed",
            reason_code=failure.reason_code if failure else None,
            node_id=failure.node_id if failure else None,
        )
    )


def _relocate(run: Run, token: Token, target: str, cause: str) -> None:
    """Close the token's work where it rests and enter ``target`` afresh (new attempt group).
    The node it leaves may not exist in ``run.m`` (a migration), so only the token is read."""
    if token.status in ("waiting", "pending"):
        run.close_task(token, cause)
    run.move(token, target, cause)


def _migrated(run: Run, state: InstanceState, event: Migrated) -> None:
    planned = {m.token_id: m for m in event.moves}
    if set(planned) != set(run.tokens):
        refuse("migration_plan_stale", state, event)
    for move in sorted(event.moves, key=lambda m: m.token_id):
        token = run.tokens.get(move.token_id)
        if run.finished or token is None:
            break
        ids = {"token_id": token.id, "node_id": move.from_node}
        if token.node_id != move.from_node:
            refuse("token_elsewhere", state, event, current_node_id=token.node_id, **ids)
        if move.to_node not in run.m.nodes or move.to_node == run.m.start:
            refuse("unknown_target", state, event, target=move.to_node, **ids)
        if move.action == "keep":
            if move.to_node != move.from_node:
                refuse("keep_needs_same_node", state, event, target=move.to_node, **ids)
            continue
        _relocate(run, token, move.to_node, "migrated")


def _repaired(run: Run, state: InstanceState, event: Repaired) -> None:
    token = addressed_token(
        run,
        state,
        event,
        event.token_id,
        event.from_node,
        event.attempt_group,
        ("active", "waiting", "pending", "held"),
    )
    if event.to_node not in run.m.nodes or event.to_node == run.m.start:
        refuse("unknown_target", state, event, token_id=token.id, target=event.to_node)
    _relocate(run, token, event.to_node, "repaired")


_HANDLERS: dict[type[Any], Callable[[Run, InstanceState, Any], None]] = {
    Started: _started,
    StepSucceeded: step_succeeded,
    StepFailedTerminal: step_failed,
    StepErrored: step_errored,
    TaskCompleted: task_completed,
    TimerFired: timer_fired,
    Cancelled: _cancelled,
    Signalled: signalled,
    Reprocessed: reprocessed,
    Abandoned: abandoned,
    CompensationDone: _compensation_done,
    Migrated: _migrated,
    Repaired: _repaired,
    ChildEnded: child_ended,
}


def decide(model: CompiledModel, state: InstanceState, event: Event, now: datetime) -> Decision:
    """Apply one event to one instance state; return the new state and the effects.

    ``now`` must be the event's ``at`` (the engine reads its clock once and records it in the
    event), so replaying the log reproduces due dates exactly. The new state's ``version`` is
    the old one plus one; refused events raise and change nothing. A :class:`StepFailed`
    decides a retry or a dead letter whatever the instance's status (a retry changes nothing
    on it; the claim skips the steps of a finished instance).
    """
    if event.at != now:
        raise ValueError("decide() needs now == event.at so the event log replays exactly")
    if isinstance(event, StepFailed):
        return attempt_failed(model, state, event, decide)
    if state.status in TERMINAL:
        refuse("instance_finished", state, event)
    if state.status == "created" and not isinstance(event, Started):
        refuse("not_started", state, event)
    if state.status != "created" and isinstance(event, Started):
        refuse("already_started", state, event)
    if state.status == "compensating" and not isinstance(event, CompensationDone):
        refuse("compensating", state, event)
    if state.status != "compensating" and isinstance(event, CompensationDone):
        refuse("not_compensating", state, event)
    run = Run(model, state, now)
    _HANDLERS[type(event)](run, state, event)
    return Decision(new_state=run.state(), effects=tuple(run.effects))


def replay(model: CompiledModel, events: Iterable[Event]) -> InstanceState:
    """Fold :func:`decide` over an instance's event log, each event at its own ``at``."""
    state = initial_state()
    for event in events:
        state = decide(model, state, event, event.at).new_state
    return state


def replay_versions(
    models: Mapping[str, CompiledModel], first_version_id: str, events: Iterable[Event]
) -> InstanceState:
    """:func:`replay` across migrations: events are decided with the model of the version the
    instance was on, and a :class:`Migrated` event (and everything after it) with its target's.
    ``models`` maps version ids to compiled models; still pure."""
    model = models[first_version_id]
    state = initial_state()
    for event in events:
        if isinstance(event, Migrated):
            model = models[event.to_version_id]
        state = decide(model, state, event, event.at).new_state
    return state
