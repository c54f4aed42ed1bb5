"""What a failed attempt leads to: the next attempt after its backoff, or a dead letter.

Decided from the node's :class:`~services.workflow.definition.model.FailurePolicy` and the
attempts already used in the current budget, with the backoff of
:func:`~services.workflow.runtime.kernel.naming.backoff` (its jitter derives from the
idempotency key, so the decision stays a pure function of its inputs).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from contracts.errors import InvalidTransition
from services.workflow.definition.compiler import CompiledModel

from .effects import DeadLetter, Decision, ScheduleStep
from .events import Event, StepFailed, StepFailedTerminal
from .naming import backoff
from .state import InstanceState

Decide = Callable[[CompiledModel, InstanceState, Event, datetime], Decision]


def attempt_failed(
    model: CompiledModel, state: InstanceState, event: StepFailed, decide: Decide
) -> Decision:
    """A retry below the node's ``max_attempts``; at it, a dead letter and — for a step — the
    ``StepFailedTerminal`` (``exhausted``) that ``decide`` makes of it. A terminal failure the
    instance refuses (it moved on, was cancelled) leaves only the dead letter."""
    node = model.nodes[event.node_id]
    policy = node.failure
    if event.used < policy.max_attempts:
        retry = ScheduleStep(
            token_id=event.token_id,
            node_id=event.node_id,
            attempt_group=event.attempt_group,
            queue=event.queue,
            handler=node.compensation
            if event.kind == "compensation"
            else getattr(node, "handler", None),
            kind=event.kind,
            attempt=event.attempt + 1,
            available_at=event.at + backoff(policy, event.used, event.idempotency_key),
        )
        return Decision(new_state=state, effects=(retry,), unchanged=True)
    letter = DeadLetter(
        step_run_id=event.step_run_id,
        token_id=event.token_id,
        node_id=event.node_id,
        kind=event.kind,
        attempt_group=event.attempt_group,
        attempts=event.used,
        last_error=dict(event.error),
        payload=event.payload,
    )
    if event.kind != "step":
        return Decision(new_state=state, effects=(letter,), unchanged=True)
    code = event.error.get("code", "retry_ceiling")
    terminal = StepFailedTerminal(
        at=event.at,
        token_id=event.token_id,
        node_id=event.node_id,
        attempt_group=event.attempt_group,
        reason_code=str(code),
        kind="exhausted",
    )
    try:
        decided = decide(model, state, terminal, event.at)
    except InvalidTransition:
        return Decision(new_state=state, effects=(letter,), unchanged=True)
    return Decision(
        new_state=decided.new_state, effects=(letter, *decided.effects), logged=terminal
    )
