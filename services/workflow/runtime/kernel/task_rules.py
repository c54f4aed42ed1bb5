"""Handlers for human tasks and timers: completion, signals, votes, separation of duties.

A task's completion is the person's choice of outcome; quorum tasks count one vote per person
until an outcome is decided. Timers either finish an intermediate timer node or act on the
task they are attached to (interrupt, start a side path, escalate).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from contracts.errors import FieldError, Forbidden, ValidationFailed
from services.workflow.definition.model import (
    HUMAN_TYPES,
    ApprovalNode,
    CallNode,
    HumanNode,
    ManualTaskNode,
    SubprocessNode,
    TimerNode,
    UserTaskNode,
)

from .advance import Run
from .effects import EscalateTask, VoteRecorded
from .events import Event, Signalled, TaskCompleted, TimerFired
from .guards import addressed_token, check_keys, refuse
from .multi import ensure_distinct_people
from .state import InstanceState, Token, Vote
from .steps import PENDING_OUTCOMES, give_up, retry


def _complete_human(
    run: Run,
    state: InstanceState,
    event: Event,
    token: Token,
    outcome: str | None,
    data: Mapping[str, Any],
    actor: str | None,
) -> None:
    node = run.m.nodes[token.node_id]
    assert isinstance(node, HUMAN_TYPES)
    ids = {"token_id": token.id, "node_id": node.id}
    outcomes = node.outcomes if isinstance(node, ApprovalNode | UserTaskNode) else None
    if outcomes:
        if outcome not in outcomes:
            refuse("unknown_outcome", state, event, outcome=outcome, **ids)
    elif outcome is not None:
        refuse("unknown_outcome", state, event, outcome=outcome, **ids)
    check_keys(data, node.produces, "data", node.id, required=False)
    if isinstance(node, ApprovalNode | UserTaskNode) and outcome is not None:
        _outcome_requirements(node, outcome, data)
    _separation_of_duties(run, node, token, actor)
    done_here = [
        c.actor
        for c in run.completed
        if c.node_id == node.id and c.attempt_group == token.attempt_group
    ]
    ensure_distinct_people(node, token.id, actor, done_here)
    if isinstance(node, ApprovalNode | UserTaskNode) and node.policy.quorum is not None:
        assert outcome is not None
        if not _vote(run, state, event, token, node, outcome, actor):
            return
    if isinstance(node, UserTaskNode) and node.multi is not None:
        run.close_task(token, "completed")
        run.complete_node(token, actor)
        entered = run.multi_task_done(token, {key: data.get(key) for key in node.produces})
        if entered is not None:
            run.move(entered, run.multi_next(node), "multi_completed")
        return
    for key in node.produces:
        run.context[key] = data.get(key, run.context.get(key))
    run.close_task(token, "completed")
    run.complete_node(token, actor)
    target = outcomes[outcome] if outcomes and outcome is not None else getattr(node, "next", None)
    assert isinstance(target, str)
    cause = f"task_completed:{outcome}" if outcome else "task_completed"
    run.move(run.win_race(token), target, cause)


def _outcome_requirements(
    node: ApprovalNode | UserTaskNode, outcome: str, data: Mapping[str, Any]
) -> None:
    """Some outcomes need data (an extension needs its justification): refuse without it."""
    missing = [
        key
        for key in node.outcome_requires.get(outcome, ())
        if data.get(key) is None or (isinstance(data.get(key), str) and not data[key].strip())
    ]
    if missing:
        raise ValidationFailed(
            f"Outcome {outcome} of node {node.id} needs more data",
            errors=[
                FieldError(
                    path=f"data.{key}",
                    code="required_for_outcome",
                    message=f"`{key}` is required when the outcome is `{outcome}`.",
                )
                for key in missing
            ],
            node_id=node.id,
            outcome=outcome,
        )


def _separation_of_duties(run: Run, node: HumanNode, token: Token, actor: str | None) -> None:
    if actor is None or isinstance(node, ManualTaskNode):
        return
    if node.policy.exclude_author and actor == run.author:
        raise Forbidden(
            "The author of the instance cannot complete this task",
            code="separation_of_duties",
            rule="exclude_author",
            token_id=token.id,
            node_id=node.id,
        )
    excluded = set(node.policy.exclude_completers_of)
    if any(c.node_id in excluded and c.actor == actor for c in run.completed):
        raise Forbidden(
            "A completer of an earlier task cannot complete this task",
            code="separation_of_duties",
            rule="exclude_completers_of",
            token_id=token.id,
            node_id=node.id,
        )


def _vote(
    run: Run,
    state: InstanceState,
    event: Event,
    token: Token,
    node: ApprovalNode | UserTaskNode,
    outcome: str,
    actor: str | None,
) -> bool:
    """Record a quorum vote; true when it decides the task."""
    quorum = node.policy.quorum
    assert quorum is not None
    ids = {"token_id": token.id, "node_id": node.id}
    if actor is None:
        refuse("vote_needs_actor", state, event, **ids)
    mine = [
        v
        for v in run.votes
        if v.token_id == token.id
        and v.attempt_group == token.attempt_group
        and v.node_id == node.id
    ]
    if any(v.actor == actor for v in mine):
        refuse("already_voted", state, event, **ids)
    run.votes.append(
        Vote(
            token_id=token.id,
            node_id=node.id,
            attempt_group=token.attempt_group,
            actor=actor,
            outcome=outcome,
        )
    )
    same = 1 + sum(1 for v in mine if v.outcome == outcome)
    if (outcome == "reject" and quorum.reject_ends) or same >= quorum.required:
        return True
    run.emit(
        VoteRecorded(
            token_id=token.id,
            node_id=node.id,
            attempt_group=token.attempt_group,
            actor=actor,
            outcome=outcome,
        )
    )
    return False


def task_completed(run: Run, state: InstanceState, event: TaskCompleted) -> None:
    token = addressed_token(
        run,
        state,
        event,
        event.token_id,
        event.node_id,
        event.attempt_group,
        ("waiting", "pending"),
    )
    node = run.m.nodes[token.node_id]
    if token.status == "pending":
        if event.outcome not in PENDING_OUTCOMES:
            refuse(
                "unknown_outcome",
                state,
                event,
                token_id=token.id,
                node_id=node.id,
                outcome=event.outcome,
            )
        check_keys(event.data, node.consumes, "data", node.id, required=False)
        run.context.update(event.data)
        if event.outcome == "retry":
            retry(run, token)
        else:
            give_up(run, token, "pending_task_failed")
        return
    if not isinstance(node, HUMAN_TYPES):
        refuse("not_a_task", state, event, token_id=token.id, node_id=node.id)
    _complete_human(run, state, event, token, event.outcome, event.data, event.actor)


def signalled(run: Run, state: InstanceState, event: Signalled) -> None:
    waiting = [
        t
        for t in run.tokens.values()
        if t.node_id == event.name
        and t.status == "waiting"
        and isinstance(run.m.nodes[t.node_id], UserTaskNode | ManualTaskNode)
    ]
    if not waiting:
        refuse("no_receiver", state, event, node_id=event.name)
    if len(waiting) > 1:
        refuse("ambiguous_signal", state, event, node_id=event.name)
    _complete_human(run, state, event, waiting[0], event.outcome, event.payload, None)


def timer_fired(run: Run, state: InstanceState, event: TimerFired) -> None:
    token = addressed_token(
        run, state, event, event.token_id, event.node_id, event.attempt_group, ("waiting",)
    )
    pending = [
        t
        for t in run.timers
        if t.token_id == token.id and t.node_id == token.node_id and t.timer_id == event.timer_id
    ]
    if not pending:
        refuse(
            "unknown_timer",
            state,
            event,
            token_id=token.id,
            node_id=token.node_id,
            timer_id=event.timer_id,
        )
    run.timers.remove(pending[0])
    node = run.m.nodes[token.node_id]
    if isinstance(node, TimerNode):
        run.complete_node(token, None)
        run.move(run.win_race(token), node.next, "timer")
        return
    assert isinstance(node, (*HUMAN_TYPES, CallNode, SubprocessNode))
    timer = next(t for t in node.timers if t.id == event.timer_id)
    cause = f"timer:{timer.id}"
    if timer.interrupting:
        assert timer.next is not None
        if not isinstance(node, CallNode | SubprocessNode):  # the engine cancels its child
            run.close_task(token, "timer")
        run.move(token, timer.next, cause)
    elif timer.next is not None:
        run.spawn(f"{token.id}.{timer.id}@{token.attempt_group}", timer.next, node.id, cause)
    else:
        assert timer.escalate_to is not None
        run.emit(
            EscalateTask(
                token_id=token.id,
                node_id=node.id,
                attempt_group=token.attempt_group,
                timer_id=timer.id,
                queue=timer.escalate_to,
            )
        )
