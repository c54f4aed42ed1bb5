"""The mutable working copy a decision edits: the state's fields, the effects emitted so far,
the small bookkeeping steps every move uses, and the :class:`InstanceState` it yields.

:class:`~services.workflow.runtime.kernel.advance.Run` builds on it with the moves themselves.
Pure: nothing here reads a clock or does I/O.
"""

from __future__ import annotations

from collections import deque
from datetime import datetime

from services.workflow.definition.compiler import CompiledModel

from .effects import CancelTimers, CloseTasks, Effect
from .state import (
    TERMINAL,
    CompletedNode,
    InstanceState,
    InstanceStatus,
    MultiRun,
    Token,
    TokenStatus,
)


class RunState:
    """Mutable copy of an :class:`InstanceState` plus the effects emitted so far, with the
    bookkeeping every move uses and the state it yields at the end."""

    def __init__(self, model: CompiledModel, state: InstanceState, now: datetime) -> None:
        self.m = model
        self.now = now
        self.status: InstanceStatus = state.status
        self.version = state.version
        self.tokens: dict[str, Token] = {t.id: t for t in state.tokens}
        self.context = dict(state.context)
        self.entries = dict(state.entries)
        self.completed = list(state.completed_nodes)
        self.timers = list(state.timers)
        self.votes = list(state.votes)
        self.multi: list[MultiRun] = list(state.multi)
        self.compensations = list(state.compensations)
        self.author = state.author
        self.failure = state.failure
        self.ending = state.ending
        self.catches = state.catches
        self.effects: list[Effect] = []
        self.arrivals: deque[tuple[str, str, str | None, str]] = deque()
        self.moves = 0
        self.finished = False

    # -- bookkeeping -------------------------------------------------------------------------

    def emit(self, effect: Effect) -> None:
        self.effects.append(effect)

    def rest(self, token_id: str, node_id: str, ag: int, status: TokenStatus) -> None:
        self.tokens[token_id] = Token(id=token_id, node_id=node_id, attempt_group=ag, status=status)

    def enter_count(self, node_id: str) -> int:
        self.entries[node_id] = self.entries.get(node_id, 0) + 1
        return self.entries[node_id]

    def release(self, token: Token) -> None:
        """The token leaves its resting node: cancel its timers and forget its votes there."""
        mine = [t for t in self.timers if t.token_id == token.id and t.node_id == token.node_id]
        if mine:
            self.timers = [t for t in self.timers if t not in mine]
            self.emit(
                CancelTimers(
                    token_id=token.id,
                    node_id=token.node_id,
                    attempt_group=token.attempt_group,
                    timer_ids=tuple(t.timer_id for t in mine),
                )
            )
        self.votes = [v for v in self.votes if v.token_id != token.id]

    def close_task(self, token: Token, reason: str) -> None:
        self.emit(
            CloseTasks(
                token_id=token.id,
                node_id=token.node_id,
                attempt_group=token.attempt_group,
                reason=reason,
            )
        )

    def complete_node(self, token: Token, actor: str | None) -> None:
        node = self.m.nodes[token.node_id]
        self.completed.append(
            CompletedNode(
                node_id=token.node_id,
                attempt_group=token.attempt_group,
                actor=actor,
                compensation=node.compensation,
            )
        )

    def caught_above(self, code: str) -> bool:
        """Whether a scope enclosing this instance catches the business error ``code``: the
        sub-process this model is (``m.escalates``) or any call or sub-process around it."""
        above = self.m.escalates.union(self.catches)
        return code in above or "*" in above

    # -- result ------------------------------------------------------------------------------

    def state(self) -> InstanceState:
        status = self.status
        if status not in TERMINAL and status != "compensating":
            kinds = {t.status for t in self.tokens.values()}
            if kinds & {"pending", "held"}:
                status = "stalled"
            elif "active" in kinds:
                status = "running"
            else:
                status = "waiting"
        return InstanceState(
            status=status,
            version=self.version + 1,
            tokens=tuple(sorted(self.tokens.values(), key=lambda t: t.id)),
            context=self.context,
            entries=self.entries,
            completed_nodes=tuple(self.completed),
            timers=tuple(self.timers),
            votes=tuple(self.votes),
            multi=tuple(self.multi),
            compensations=tuple(self.compensations),
            author=self.author,
            failure=self.failure,
            ending=self.ending,
            catches=self.catches,
        )
