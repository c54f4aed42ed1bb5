"""Sagas: the completed nodes' compensations, run one at a time, most recent first.

Two things start one: a terminal failure (the instance then ends ``failed``) and a compensation
end (an ``end`` node with ``compensate``: the instance then ends with that node's result). Each
``RunCompensation`` effect is answered by a ``CompensationDone`` event, which runs the next
(:func:`~.transitions.decide`); the state keeps what is left, so a crash resumes the saga.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from services.workflow.definition.model import EndNode

from .effects import InstanceFinished, RunCompensation
from .multi import Multis
from .state import Ending, PendingCompensation


class Sagas(Multis):
    """The saga moves of a :class:`~.advance.Run` (which drops the tokens)."""

    if TYPE_CHECKING:  # the Run's own, declared for the type checker only

        def _drop_all_tokens(self, cause: str) -> None: ...

    def start_saga(self) -> bool:
        """Queue the completed nodes' compensations, most recent first, and run the first;
        ``False`` when there is nothing to compensate."""
        self.compensations = [
            PendingCompensation(
                node_id=c.node_id, attempt_group=c.attempt_group, handler=c.compensation
            )
            for c in reversed(self.completed)
            if c.compensation is not None
        ]
        if not self.compensations:
            return False
        self.status = "compensating"
        self.run_next_compensation()
        return True

    def run_next_compensation(self) -> None:
        nxt = self.compensations[0]
        self.emit(
            RunCompensation(
                node_id=nxt.node_id,
                attempt_group=nxt.attempt_group,
                handler=nxt.handler,
                queue=self.m.queues.get(nxt.node_id, "integration"),
            )
        )

    def compensate_then_end(self, node: EndNode) -> None:
        """A compensation end: every other token is dropped (tasks closed, timers cancelled),
        the saga runs, then the instance ends with the node's result."""
        self._drop_all_tokens("compensate")
        self.ending = Ending(status=node.result, node_id=node.id)
        if not self.start_saga():
            self.end_compensated()

    def end_compensated(self) -> None:
        """The saga a compensation end started is over: end with its result."""
        assert self.ending is not None
        self.status = self.ending.status
        self.emit(
            InstanceFinished(
                status=self.ending.status, reason_code="compensated", node_id=self.ending.node_id
            )
        )
