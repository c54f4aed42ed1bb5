"""A tiny driver that applies events to one instance through ``decide`` and keeps the log."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from services.workflow.definition import CompiledModel
from services.workflow.runtime.kernel.effects import Decision, Effect
from services.workflow.runtime.kernel.events import (
    Event,
    Started,
    StepFailedTerminal,
    StepSucceeded,
    TaskCompleted,
    TimerFired,
)
from services.workflow.runtime.kernel.state import InstanceState, Token, initial_state
from services.workflow.runtime.kernel.transitions import decide, replay

T0 = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


class Driver:
    def __init__(self, model: CompiledModel, now: datetime = T0) -> None:
        self.model = model
        self.now = now
        self.state: InstanceState = initial_state()
        self.log: list[Event] = []
        self.effects: list[Effect] = []

    def apply(self, event: Event) -> Decision:
        decision = decide(self.model, self.state, event, event.at)
        assert decision.new_state.version == self.state.version + 1
        self.state = decision.new_state
        self.log.append(event)
        self.effects.extend(decision.effects)
        return decision

    def later(self, **delta: float) -> None:
        self.now += timedelta(**delta)

    def token(self, node_id: str) -> Token:
        (token,) = [t for t in self.state.tokens if t.node_id == node_id]
        return token

    def start(self, actor: str | None = "author", **inputs: Any) -> Decision:
        return self.apply(Started(at=self.now, input=inputs, actor=actor))

    def succeed(self, node_id: str, **output: Any) -> Decision:
        t = self.token(node_id)
        return self.apply(
            StepSucceeded(
                at=self.now,
                token_id=t.id,
                node_id=node_id,
                attempt_group=t.attempt_group,
                output=output,
            )
        )

    def fail(
        self, node_id: str, kind: str = "exhausted", reason: str = "retries_exhausted"
    ) -> Decision:
        t = self.token(node_id)
        return self.apply(
            StepFailedTerminal(
                at=self.now,
                token_id=t.id,
                node_id=node_id,
                attempt_group=t.attempt_group,
                reason_code=reason,
                kind=kind,  # type: ignore[arg-type]
            )
        )

    def complete(
        self, node_id: str, outcome: str | None = None, actor: str | None = "someone", **data: Any
    ) -> Decision:
        t = self.token(node_id)
        return self.apply(
            TaskCompleted(
                at=self.now,
                token_id=t.id,
                node_id=node_id,
                attempt_group=t.attempt_group,
                outcome=outcome,
                data=data,
                actor=actor,
            )
        )

    def fire(self, node_id: str, timer_id: str | None = None) -> Decision:
        t = self.token(node_id)
        return self.apply(
            TimerFired(
                at=self.now,
                token_id=t.id,
                node_id=node_id,
                attempt_group=t.attempt_group,
                timer_id=timer_id or node_id,
            )
        )

    def replayed(self) -> InstanceState:
        return replay(self.model, self.log)
