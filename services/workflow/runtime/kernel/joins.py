"""How tokens wait at joins and merge back: a parallel join counts its fork's branches, an
inclusive join waits while a live token can still reach it. Pure, like the rest of the kernel.
"""

from __future__ import annotations

from services.workflow.definition.model import InclusiveNode, ParallelNode

from .run_state import RunState


def parent_of(token_id: str) -> str:
    return token_id.rsplit(".", 1)[0]


class Joins(RunState):
    """The join moves of a :class:`~.advance.Run`; a token is already parked on the join
    (``arrived_at_join``) when these are asked whether it fires."""

    def parallel_join(self, node: ParallelNode, parent: str) -> None:
        """Fire once the token of every branch of the fork has arrived."""
        arrived = [
            t
            for t in self.tokens.values()
            if t.node_id == node.id and t.status == "arrived_at_join" and parent_of(t.id) == parent
        ]
        if len(arrived) < self.m.join_incoming[node.id]:
            return
        for t in arrived:
            del self.tokens[t.id]
        assert isinstance(node.next, str)
        self.rest(parent, node.id, self.enter_count(node.id), "active")
        self.arrivals.append((parent, node.next, node.id, "join"))

    def inclusive_join(self, node: InclusiveNode, parent: str) -> bool:
        """Fire when no live token can still reach the join (BPMN 2.0 §13.3.3): the tokens
        parked here for ``parent`` merge back into it. Tokens in flight rest on the node they
        leave until they arrive, so a sibling moving in the same decision is still counted."""
        reach = self.m.inclusive_reach[node.id]
        if any(t.node_id in reach for t in self.tokens.values()):
            return False
        arrived = [
            t
            for t in self.tokens.values()
            if t.node_id == node.id and t.status == "arrived_at_join" and parent_of(t.id) == parent
        ]
        if not arrived:
            return False
        for t in arrived:
            del self.tokens[t.id]
        assert node.next is not None
        self.rest(parent, node.id, self.enter_count(node.id), "active")
        self.arrivals.append((parent, node.next, node.id, "join"))
        return True

    def settle_inclusive_joins(self) -> bool:
        """Fire the inclusive joins that nothing can reach any more (a token that could have
        arrived ended elsewhere); true when one fired and its token needs moving on."""
        parked = sorted(
            (t for t in self.tokens.values() if t.status == "arrived_at_join"),
            key=lambda t: t.id,
        )
        for t in parked:
            node = self.m.nodes[t.node_id]
            if isinstance(node, InclusiveNode) and self.inclusive_join(node, parent_of(t.id)):
                return True
        return False
