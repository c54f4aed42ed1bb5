"""Shape rules of the event-based gateway: every way out is one catch that waits alone.

A target is an intermediate timer (``timer``) or a task a message completes (``user_task`` or
``manual_task``, delivered by ``POST /api/v1/messages``) without timers of its own, and the
gateway is its only way in, so the engine knows, when it happens, which waits lost the race.
"""

from __future__ import annotations

from contracts.errors import FieldError

from .graph import Graph
from .messages import N_
from .model import EventGatewayNode, ManualTaskNode, TimerNode, UserTaskNode
from .multi import multi_of


def event_gateway_errors(graph: Graph) -> list[FieldError]:
    """Every event gateway's targets, each problem against the gateway's path."""
    errors: list[FieldError] = []
    for nid, node in graph.nodes.items():
        if not isinstance(node, EventGatewayNode):
            continue
        if len(set(node.next)) != len(node.next):
            errors.append(
                FieldError.of(
                    graph.path(nid),
                    "event_gateway_target",
                    N_("Event-based gateway `%(node)s` names the same event twice in `next`."),
                    node=nid,
                )
            )
        for target in node.next:
            errors.extend(_target_errors(graph, nid, target))
    return errors


def _target_errors(graph: Graph, nid: str, target: str) -> list[FieldError]:
    caught = graph.nodes.get(target)
    if caught is None:
        return []  # the structure check already reports a dangling reference
    if isinstance(caught, UserTaskNode | ManualTaskNode) and caught.timers:
        template = N_(
            "Event-based gateway `%(node)s` leads to `%(target)s`, which has timers of its "
            "own; the gateway's other ways out are its timers."
        )
    elif multi_of(caught) is not None:
        template = N_(
            "Event-based gateway `%(node)s` leads to `%(target)s`, a multi-instance task; a "
            "message completes one task only."
        )
    elif not isinstance(caught, TimerNode | UserTaskNode | ManualTaskNode):
        template = N_(
            "Event-based gateway `%(node)s` leads to `%(target)s`, which is not an event to "
            "wait for: each way out must be a timer or a task that a message completes."
        )
    elif len(graph.inc.get(target, [])) != 1:
        template = N_(
            "Event-based gateway `%(node)s` leads to `%(target)s`, which has other incoming "
            "flows; an event the gateway waits for must be reached only from it."
        )
    else:
        return []
    return [
        FieldError.of(graph.path(nid), "event_gateway_target", template, node=nid, target=target)
    ]
