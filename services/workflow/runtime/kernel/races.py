"""The event-based gateway's race: one token per awaited event, the first to happen wins.

At the gateway the token ``<t>`` splits into ``<t>.<i>``, one per ``next`` (a timer armed, or a
task a message completes); the waits are the usual timer rows and task rows, so they survive a
restart. When one of them completes, its siblings are cancelled in the same decision (timers
cancelled, tasks closed) and the winner continues as ``<t>`` again, so an enclosing join still
sees the token it forked. Pure, like the rest of the kernel.
"""

from __future__ import annotations

from services.workflow.definition.model import EventGatewayNode, TimerNode

from .effects import Transitioned
from .joins import Joins, parent_of
from .state import Token


class Races(Joins):
    """The event-gateway moves of a :class:`~.advance.Run`."""

    def event_gateway(self, token_id: str, node: EventGatewayNode) -> None:
        ag = self.enter_count(node.id)
        self.tokens.pop(token_id, None)
        for i, target in enumerate(node.next):
            child = f"{token_id}.{i}"
            self.rest(child, node.id, ag, "active")
            self.arrivals.append((child, target, node.id, "event"))

    def racing_gateway(self, node_id: str) -> EventGatewayNode | None:
        """The event gateway ``node_id`` waits for, if any (validation: its only way in)."""
        preds = self.m.predecessors.get(node_id, ())
        gateway = self.m.nodes[preds[0]] if len(preds) == 1 else None
        return gateway if isinstance(gateway, EventGatewayNode) else None

    def win_race(self, token: Token) -> Token:
        """``token`` caught its event: cancel the gateway's other waits and continue as the
        token that reached the gateway. Any other token is returned unchanged."""
        gateway = self.racing_gateway(token.node_id)
        if gateway is None:
            return token
        parent = parent_of(token.id)
        targets = set(gateway.next) - {token.node_id}
        for other in sorted(self.tokens.values(), key=lambda t: t.id):
            if other.node_id not in targets or parent_of(other.id) != parent:
                continue
            if not isinstance(self.m.nodes[other.node_id], TimerNode):
                self.close_task(other, "race_lost")
            self.release(other)
            del self.tokens[other.id]
            self.emit(
                Transitioned(
                    token_id=other.id, from_node=other.node_id, to_node=None, cause="race_lost"
                )
            )
        self.release(token)
        del self.tokens[token.id]
        winner = Token(
            id=parent, node_id=token.node_id, attempt_group=token.attempt_group, status=token.status
        )
        self.tokens[parent] = winner
        return winner
