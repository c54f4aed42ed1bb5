"""Sagas: the completed nodes' compensations, run one at a time, most recent first.

Three things start one: a terminal failure (the instance then ends ``failed``), a compensation
end (an ``end`` node with ``compensate``: the instance then ends with that node's result) and a
cancellation that asks for it (then ``cancelled``). Each
``RunCompensation`` effect is answered by a ``CompensationDone`` event, which runs the next
(:func:`~.transitions.decide`); the state keeps what is left, so a crash resumes the saga.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .effects import InstanceFinished, RunCompensation
from .multi import Multis
from .state import Ending, InstanceStatus, PendingCompensation


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

    def compensate_then_end(self, status: InstanceStatus, node_id: str | None, cause: str) -> None:
        """A compensation end (``node_id``) or a compensating cancellation: every token is
        dropped (tasks closed, timers cancelled), the saga runs, then the instance ends with
        ``status``."""
        self._drop_all_tokens(cause)
        self.ending = Ending(status=status, node_id=node_id)
        if not self.start_saga():
            self.end_compensated()

    def end_compensated(self) -> None:
        """The saga a compensation end or a cancellation started is over: end as it said."""
        assert self.ending is not None
        self.status = self.ending.status
        self.emit(
            InstanceFinished(
                status=self.ending.status, reason_code="compensated", node_id=self.ending.node_id
            )
        )
