"""The end of a call activity's (or an embedded sub-process's) child, decided on the instance
that started it.

A child that failed on a business error reports its code: the node's route for that code,
else its ``child_failed`` route, else its ``*`` route takes it (stored with the child's code,
or ``child_failed`` when it reported none); when none does and a scope around this instance
catches the code, this instance fails with it too (``business_error``), so the error keeps
going outward; otherwise the instance fails with ``child_failed``."""

from __future__ import annotations

from services.workflow.definition.model import CallNode, SubprocessNode

from .advance import Run
from .calls import CHILD_FAILED
from .events import ChildEnded
from .guards import addressed_token, refuse
from .state import InstanceState


def child_ended(run: Run, state: InstanceState, event: ChildEnded) -> None:
    token = addressed_token(
        run, state, event, event.token_id, event.node_id, event.attempt_group, ("waiting",)
    )
    node = run.m.nodes[token.node_id]
    if not isinstance(node, CallNode | SubprocessNode):
        refuse("not_a_call", state, event, token_id=token.id, node_id=node.id)
    if event.status == "completed":
        if isinstance(node, SubprocessNode):
            run.context.update(event.output)
        else:
            run.context.update({key: event.output.get(src) for key, src in node.out.items()})
        run.complete_node(token, None)
        run.move(token, node.next, "child_completed")
        return
    routes = {r.code: r for r in node.errors}
    code = event.error if event.error in routes else CHILD_FAILED
    route = routes.get(code)
    if route is None and "*" in routes:
        route, code = routes["*"], event.error or CHILD_FAILED
    if route is None and event.error is not None and run.caught_above(event.error):
        run.fail("business_error", node.id, cause=event.error)  # to the enclosing scopes
        return
    if route is None:
        run.fail(CHILD_FAILED, node.id)
        return
    if route.store is not None:
        run.context[route.store] = {"code": code, "details": {"status": event.status}}
    run.move(token, route.next, f"error:{code}")
