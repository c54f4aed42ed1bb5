"""The end of a call activity's (or an embedded sub-process's) child, decided on the instance
that started it."""

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
    route = routes.get(code) or routes.get("*")
    if route is None:
        run.fail(CHILD_FAILED, node.id)
        return
    if route.store is not None:
        run.context[route.store] = {"code": code, "details": {"status": event.status}}
    run.move(token, route.next, f"error:{code}")
