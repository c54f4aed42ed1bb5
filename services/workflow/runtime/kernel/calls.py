"""The call activity in the kernel: entering one asks for a child instance (its end resumes
the token: :mod:`.call_rules`).

A token that arrives at a ``call`` node rests there ``waiting`` and the decision carries
:class:`~.effects.StartChild` with the child's input (the node's ``in`` expressions over this
context); the engine starts the child in the same transaction. When the child ends, the engine
decides :class:`~.events.ChildEnded` on this instance: ``completed`` copies ``out`` and takes
``next``; any other end is the error ``child_failed``, routed like a handler's business error
(``errors``), and without a route the instance fails (``child_failed``). An embedded
``subprocess`` node does the same with the sub-process's own model in this version and the
whole context as input. Both start the node's boundary timers (a timer that takes the token
away leaves the child to be cancelled by the engine). Pure.

A business error propagates outward through any number of these levels (BPMN's nearest
enclosing scope that catches it): each child starts knowing the codes its enclosing scopes
catch (:func:`child_catches`), so a step's error that no route inside takes fails the child
with that code only when a scope around it will take it, and each level on the way that does
not take it fails in turn with the same code (:mod:`.call_rules`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from contracts.errors import RuleError
from services.workflow.definition.model import CallNode, SubprocessNode

from .effects import StartChild
from .failures import rule_cause

if TYPE_CHECKING:
    from .advance import Run

CHILD_FAILED = "child_failed"


def child_catches(run: Run, node: CallNode | SubprocessNode) -> tuple[str, ...]:
    """The codes the child of ``node`` may throw outward: the node's own error routes and
    those of every scope enclosing this instance."""
    own = {r.code for r in node.errors}
    return tuple(sorted(own.union(run.m.escalates, run.catches)))


def enter_call(run: Run, token_id: str, node: CallNode | SubprocessNode) -> None:
    ag = run.enter_count(node.id)
    run.rest(token_id, node.id, ag, "waiting")
    if isinstance(node, SubprocessNode):
        run.emit(
            StartChild(
                token_id=token_id,
                node_id=node.id,
                attempt_group=ag,
                definition=run.m.scopes[node.id].key,
                embedded=True,
                input=dict(run.context),
                catches=child_catches(run, node),
            )
        )
        run.boundary_timers(token_id, node, ag)
        return
    values: dict[str, Any] = {}
    for key, expression in run.m.calls.get(node.id, ()):
        try:
            values[key] = expression(run.context)
        except RuleError as exc:
            run.fail("call_input_error", node.id, rule_cause(exc))
            return
    run.emit(
        StartChild(
            token_id=token_id,
            node_id=node.id,
            attempt_group=ag,
            definition=node.definition,
            version=node.version,
            input=values,
            catches=child_catches(run, node),
        )
    )
    run.boundary_timers(token_id, node, ag)
