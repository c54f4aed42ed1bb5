"""Handlers for step outcomes: success, terminal failure, reprocessing and abandoning.

A terminal failure follows the node's policy: a partner's 4xx opens a pending task (or fails),
an exhausted retry ceiling fails the instance with compensation (or holds it for reprocessing).
Reprocessing reuses the token's attempt group, so the idempotency key stays the same.
"""

from __future__ import annotations

from services.workflow.definition.model import WORK_TYPES

from .advance import Run
from .effects import OpenTask, ScheduleStep, Transitioned
from .events import Abandoned, Reprocessed, StepFailedTerminal, StepSucceeded
from .guards import addressed_token, check_keys, refuse
from .state import InstanceState, Token

PENDING_OUTCOMES = ("retry", "fail")


def step_succeeded(run: Run, state: InstanceState, event: StepSucceeded) -> None:
    token = addressed_token(
        run, state, event, event.token_id, event.node_id, event.attempt_group, ("active",)
    )
    node = run.m.nodes[token.node_id]
    if not isinstance(node, WORK_TYPES):
        refuse("not_a_step", state, event, token_id=token.id, node_id=node.id)
    check_keys(event.output, node.produces, "output", node.id, required=True)
    run.context.update(event.output)
    run.complete_node(token, None)
    run.move(token, node.next, "step_succeeded")


def step_failed(run: Run, state: InstanceState, event: StepFailedTerminal) -> None:
    token = addressed_token(
        run, state, event, event.token_id, event.node_id, event.attempt_group, ("active",)
    )
    node = run.m.nodes[token.node_id]
    if not isinstance(node, WORK_TYPES):
        refuse("not_a_step", state, event, token_id=token.id, node_id=node.id)
    policy = node.failure
    if event.kind == "rejected" and policy.on_validation_error == "pending_task":
        run.rest(token.id, node.id, token.attempt_group, "pending")
        run.emit(
            Transitioned(
                token_id=token.id, from_node=node.id, to_node=node.id, cause="pending_task"
            )
        )
        run.emit(
            OpenTask(
                token_id=token.id,
                node_id=node.id,
                attempt_group=token.attempt_group,
                queue=run.m.pending_queues[node.id],
                kind="pending",
                outcomes=PENDING_OUTCOMES,
            )
        )
    elif event.kind == "exhausted" and policy.on_exhausted == "hold":
        run.rest(token.id, node.id, token.attempt_group, "held")
        run.emit(Transitioned(token_id=token.id, from_node=node.id, to_node=node.id, cause="held"))
    else:
        run.fail(event.reason_code, node.id)


def retry(run: Run, token: Token) -> None:
    if token.status == "pending":
        run.close_task(token, "reprocessed")
    node = run.m.nodes[token.node_id]
    run.rest(token.id, token.node_id, token.attempt_group, "active")
    run.emit(
        Transitioned(token_id=token.id, from_node=node.id, to_node=node.id, cause="reprocessed")
    )
    run.emit(
        ScheduleStep(
            token_id=token.id,
            node_id=node.id,
            attempt_group=token.attempt_group,
            queue=run.m.queues[node.id],
            handler=getattr(node, "handler", None),
        )
    )


def give_up(run: Run, token: Token, reason_code: str) -> None:
    """Failing drops every token, which closes this one's pending task too (once)."""
    run.fail(reason_code, token.node_id)


def reprocessed(run: Run, state: InstanceState, event: Reprocessed) -> None:
    retry(
        run,
        addressed_token(
            run,
            state,
            event,
            event.token_id,
            event.node_id,
            event.attempt_group,
            ("pending", "held"),
        ),
    )


def abandoned(run: Run, state: InstanceState, event: Abandoned) -> None:
    token = addressed_token(
        run, state, event, event.token_id, event.node_id, event.attempt_group, ("pending", "held")
    )
    give_up(run, token, event.reason_code)
