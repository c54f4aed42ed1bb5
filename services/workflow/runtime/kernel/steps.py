"""Handlers for step outcomes: success, terminal failure, reprocessing and abandoning.

A terminal failure follows the node's policy: a partner's 4xx opens a pending task (or fails),
an exhausted retry ceiling fails the instance with compensation (or holds it for reprocessing).
Reprocessing reuses the token's attempt group, so the idempotency key stays the same.
"""

from __future__ import annotations

from services.workflow.definition.model import WORK_TYPES, ErrorRoute, ServiceTaskNode

from .advance import Run
from .effects import OpenTask, ScheduleStep, Transitioned
from .events import Abandoned, Reprocessed, StepErrored, StepFailedTerminal, StepSucceeded
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


def error_route(node: ServiceTaskNode, code: str) -> ErrorRoute | None:
    """The route for ``code``: its own, else the catch-all ``*``, else none."""
    routes = {r.code: r for r in node.errors}
    return routes.get(code) or routes.get("*")


def step_errored(run: Run, state: InstanceState, event: StepErrored) -> None:
    """A business error: the step closes (not completed, so nothing to compensate) and the
    token takes the error route, the error stored under the route's ``store`` key. Without a
    route it is a rejection (``business_error``): a pending task or a failure, by policy."""
    token = addressed_token(
        run, state, event, event.token_id, event.node_id, event.attempt_group, ("active",)
    )
    node = run.m.nodes[token.node_id]
    if not isinstance(node, WORK_TYPES):
        refuse("not_a_step", state, event, token_id=token.id, node_id=node.id)
    route = error_route(node, event.code) if isinstance(node, ServiceTaskNode) else None
    if route is None and run.caught_above(event.code):
        run.fail("business_error", node.id, cause=event.code)  # to the enclosing scopes
        return
    if route is None:
        _failed(run, token, "rejected", "business_error")
        return
    if route.store is not None:
        run.context[route.store] = {"code": event.code, "details": dict(event.details)}
    run.move(token, route.next, f"error:{event.code}")


def step_failed(run: Run, state: InstanceState, event: StepFailedTerminal) -> None:
    token = addressed_token(
        run, state, event, event.token_id, event.node_id, event.attempt_group, ("active",)
    )
    node = run.m.nodes[token.node_id]
    if not isinstance(node, WORK_TYPES):
        refuse("not_a_step", state, event, token_id=token.id, node_id=node.id)
    _failed(run, token, event.kind, event.reason_code)


def _failed(run: Run, token: Token, kind: str, reason_code: str) -> None:
    node = run.m.nodes[token.node_id]
    assert isinstance(node, WORK_TYPES)
    policy = node.failure
    if kind == "rejected" and policy.on_validation_error == "pending_task":
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
    elif kind == "exhausted" and policy.on_exhausted == "hold":
        run.rest(token.id, node.id, token.attempt_group, "held")
        run.emit(Transitioned(token_id=token.id, from_node=node.id, to_node=node.id, cause="held"))
    else:
        run.fail(reason_code, node.id)


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
