"""The working copy of one decision: moves tokens through inline nodes and collects effects.

``decide()`` copies the state into a :class:`Run`, applies one event and lets the run advance
every moved token through the nodes the engine executes inline (start, exclusive, parallel,
inclusive, event gateway, end) until each rests where work is needed (a step, a task, a timer)
or is consumed. Still pure: the only inputs are the compiled model, the state and ``now``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Final

from contracts.errors import InvalidTransition, RuleError
from services.workflow.definition.model import (
    HUMAN_TYPES,
    WORK_TYPES,
    CallNode,
    DeadlineRef,
    EndNode,
    EventGatewayNode,
    ExclusiveNode,
    HumanNode,
    InclusiveNode,
    ParallelNode,
    StartNode,
    SubprocessNode,
    TimerNode,
    UserTaskNode,
)
from services.workflow.definition.ports import Condition

from .calls import enter_call
from .effects import (
    InstanceFinished,
    OpenTask,
    ScheduleStep,
    StartTimer,
    Transitioned,
)
from .failures import rule_cause
from .joins import parent_of
from .sagas import Sagas
from .state import (
    FailureInfo,
    InstanceStatus,
    PendingTimer,
    Token,
)

MAX_INLINE_MOVES: Final = 1000
"""Validation forbids loops made only of gateways; this bound is the safety net behind it."""


class Run(Sagas):
    """The working copy of one decision (:class:`~.run_state.RunState`) and its moves: arriving
    at each kind of node, routing, forks and joins, opening tasks and timers, and ending."""

    # -- moving ------------------------------------------------------------------------------

    def move(self, token: Token, target: str, cause: str) -> None:
        """Send a resting token to ``target`` (the caller closed its tasks) and advance."""
        self.release(token)
        self.arrivals.append((token.id, target, token.node_id, cause))
        self.drain()

    def spawn(self, token_id: str, target: str, from_node: str | None, cause: str) -> None:
        self.arrivals.append((token_id, target, from_node, cause))
        self.drain()

    def drain(self) -> None:
        while True:
            while self.arrivals and not self.finished:
                self.moves += 1
                if self.moves > MAX_INLINE_MOVES:
                    raise InvalidTransition(
                        "Too many inline moves in one decision",
                        code="inline_move_limit",
                        status=self.status,
                    )
                self._arrive(*self.arrivals.popleft())
            self.arrivals.clear()
            if self.finished or not self.settle_inclusive_joins():
                return

    def _arrive(self, token_id: str, node_id: str, from_node: str | None, cause: str) -> None:
        self.emit(
            Transitioned(token_id=token_id, from_node=from_node, to_node=node_id, cause=cause)
        )
        node = self.m.nodes[node_id]
        if isinstance(node, StartNode):
            self.rest(token_id, node_id, self.enter_count(node_id), "active")
            self.arrivals.append((token_id, node.next, node_id, "next"))
        elif isinstance(node, EndNode):
            self.tokens.pop(token_id, None)
            if node.compensate:
                self.compensate_then_end(node.result, node_id, "compensate")
            elif node.result != "completed":
                self.terminate(node.result, node_id=node_id)
            elif not self.tokens:
                self.terminate("completed", node_id=node_id)
        elif isinstance(node, ExclusiveNode):
            self.rest(token_id, node_id, self.enter_count(node_id), "active")
            self._route(token_id, node)
        elif isinstance(node, ParallelNode):
            self._parallel(token_id, node)
        elif isinstance(node, InclusiveNode):
            if node.branches:
                self._inclusive_fork(token_id, node)
            else:
                self.rest(token_id, node.id, self.entries.get(node.id, 0) + 1, "arrived_at_join")
                self.inclusive_join(node, parent_of(token_id))
        elif isinstance(node, EventGatewayNode):
            self.event_gateway(token_id, node)
        elif isinstance(node, CallNode | SubprocessNode):
            enter_call(self, token_id, node)
        elif isinstance(node, WORK_TYPES):
            ag = self.enter_count(node_id)
            self.rest(token_id, node_id, ag, "active")
            handler = getattr(node, "handler", None)
            self.emit(
                ScheduleStep(
                    token_id=token_id,
                    node_id=node_id,
                    attempt_group=ag,
                    queue=self.m.queues[node_id],
                    handler=handler,
                    fresh=True,
                )
            )
        elif isinstance(node, UserTaskNode) and node.multi is not None:
            self.multi_enter(token_id, node)
        elif isinstance(node, HUMAN_TYPES):
            self._open_task(token_id, node)
        else:
            assert isinstance(node, TimerNode)
            self._start_timer_node(token_id, node)

    def _route(self, token_id: str, node: ExclusiveNode) -> None:
        for i, (condition, target) in enumerate(self.m.branches[node.id]):
            value = self._holds(node.id, condition)
            if value is None:
                return
            if value:
                self.arrivals.append((token_id, target, node.id, f"branches[{i}]"))
                return
        assert node.default is not None
        self.arrivals.append((token_id, node.default, node.id, "default"))

    def _holds(self, node_id: str, condition: Condition) -> bool | None:
        """A branch condition's value, or ``None`` when it failed (and so did the instance)."""
        try:
            value = condition(self.context)
        except RuleError as exc:
            self.fail("condition_error", node_id, rule_cause(exc))
            return None
        if not isinstance(value, bool):
            self.fail("condition_not_boolean", node_id, "not_boolean")
            return None
        return value

    def _parallel(self, token_id: str, node: ParallelNode) -> None:
        if not isinstance(node.next, str):
            ag = self.enter_count(node.id)
            self.tokens.pop(token_id, None)
            for i, target in enumerate(node.next):
                child = f"{token_id}.{i}"
                self.rest(child, node.id, ag, "active")
                self.arrivals.append((child, target, node.id, "fork"))
            return
        self.rest(token_id, node.id, self.entries.get(node.id, 0) + 1, "arrived_at_join")
        self.parallel_join(node, parent_of(token_id))

    def _inclusive_fork(self, token_id: str, node: InclusiveNode) -> None:
        """Every branch whose condition is true starts a token ``<token>.<i>`` (``i``: the
        branch's index; the default is ``len(branches)``); the default only when none is."""
        ag = self.enter_count(node.id)
        self.rest(token_id, node.id, ag, "active")
        taken: list[tuple[int, str, str]] = []
        for i, (condition, target) in enumerate(self.m.branches[node.id]):
            value = self._holds(node.id, condition)
            if value is None:
                return
            if value:
                taken.append((i, target, f"branches[{i}]"))
        if not taken:
            if node.default is None:
                self.fail("no_branch_taken", node.id)
                return
            taken.append((len(node.branches), node.default, "default"))
        del self.tokens[token_id]
        for i, target, cause in taken:
            child = f"{token_id}.{i}"
            self.rest(child, node.id, ag, "active")
            self.arrivals.append((child, target, node.id, cause))

    def _open_task(
        self,
        token_id: str,
        node: HumanNode,
        ag: int | None = None,
        data: dict[str, Any] | None = None,
        multi: dict[str, Any] | None = None,
    ) -> None:
        """Open the node's task for the token; a multi-instance node's tasks share the
        ``ag`` of its entry and each receives its item as ``data`` (its place: ``multi``)."""
        ag = self.enter_count(node.id) if ag is None else ag
        self.rest(token_id, node.id, ag, "waiting")
        outcomes = getattr(node, "outcomes", None) or {}
        priority, by_rule, error = self._priority(node.id)
        self.emit(
            OpenTask(
                token_id=token_id,
                node_id=node.id,
                attempt_group=ag,
                queue=self.m.task_queues[node.id],
                form=getattr(node, "form", None),
                outcomes=tuple(outcomes),
                policy=getattr(node, "policy", None),
                priority=priority,
                priority_rule=by_rule,
                priority_error=error,
                data=data,
                multi=multi,
            )
        )
        self.boundary_timers(token_id, node, ag)

    def boundary_timers(
        self, token_id: str, node: HumanNode | CallNode | SubprocessNode, ag: int
    ) -> None:
        """Start the boundary timers of the node where the token now waits."""
        for timer in node.timers:
            due = self.m.timer_durations.get((node.id, timer.id))
            self._timer(
                token_id,
                node.id,
                ag,
                timer.id,
                timer.interrupting,
                due,
                timer.business_days,
                deadline=timer.deadline,
            )

    def _priority(self, node_id: str) -> tuple[int, str | None, str | None]:
        """(priority, the node whose rule set it, why the rule failed). A rule that fails or
        is not boolean leaves the task at normal priority rather than stopping the case: a
        citizen's request must never wait on how urgent it looks."""
        rule = self.m.priorities.get(node_id)
        if rule is None:
            return 0, None, None
        condition, level = rule
        try:
            value = condition(self.context)
        except RuleError as exc:
            return 0, None, rule_cause(exc)
        if not isinstance(value, bool):
            return 0, None, "not_boolean"
        return (level, node_id, None) if value else (0, None, None)

    def _start_timer_node(self, token_id: str, node: TimerNode) -> None:
        ag = self.enter_count(node.id)
        self.rest(token_id, node.id, ag, "waiting")
        if node.until is not None:
            try:
                value = self.m.until[node.id](self.context)
            except RuleError as exc:
                self.fail("timer_error", node.id, rule_cause(exc))
                return
            due_at = _timestamp(value)
            if due_at is None:
                self.fail("timer_error", node.id, "not_a_time")
                return
            self._timer(token_id, node.id, ag, node.id, True, None, None, due_at=due_at)
            return
        due = self.m.timer_durations.get((node.id, node.id))
        self._timer(
            token_id, node.id, ag, node.id, True, due, node.business_days, deadline=node.deadline
        )

    def _timer(
        self,
        token_id: str,
        node_id: str,
        ag: int,
        timer_id: str,
        interrupting: bool,
        duration: timedelta | None,
        business_days: int | None,
        *,
        due_at: datetime | None = None,
        deadline: DeadlineRef | None = None,
    ) -> None:
        if duration is not None:
            due_at = self.now + duration
        self.timers.append(
            PendingTimer(token_id=token_id, node_id=node_id, attempt_group=ag, timer_id=timer_id)
        )
        self.emit(
            StartTimer(
                token_id=token_id,
                node_id=node_id,
                attempt_group=ag,
                timer_id=timer_id,
                interrupting=interrupting,
                starts_at=self.now,
                due_at=due_at,
                business_days=business_days,
                rule=deadline.rule if deadline is not None else None,
                extension=deadline.extension if deadline is not None else False,
            )
        )

    # -- ending ------------------------------------------------------------------------------

    def _drop_all_tokens(self, cause: str) -> None:
        for token in sorted(self.tokens.values(), key=lambda t: t.id):
            if token.status in ("waiting", "pending") and not isinstance(
                self.m.nodes[token.node_id], TimerNode
            ):
                self.close_task(token, "instance_finished")
            self.release(token)
            self.emit(
                Transitioned(token_id=token.id, from_node=token.node_id, to_node=None, cause=cause)
            )
        self.tokens.clear()
        self.timers.clear()
        self.votes.clear()
        self.multi.clear()
        self.arrivals.clear()
        self.finished = True

    def terminate(
        self, status: InstanceStatus, *, node_id: str | None, reason: str | None = None
    ) -> None:
        """Finish now with ``status``: every other token is dropped, tasks closed, timers
        cancelled. An end whose result is not ``completed`` does this for the whole instance."""
        self._drop_all_tokens(status)
        self.status = status
        self.emit(InstanceFinished(status=status, reason_code=reason, node_id=node_id))

    def fail(self, reason_code: str, node_id: str | None, cause: str | None = None) -> None:
        """Fail terminally: drop tokens, then run compensations (saga) before ``failed``.
        ``cause`` says why a rule failed (its stable code: ``timeout``, ``division_by_zero``...)."""
        self._drop_all_tokens("failed")
        self.failure = FailureInfo(reason_code=reason_code, node_id=node_id, cause=cause)
        if not self.start_saga():
            self.status = "failed"
            self.emit(InstanceFinished(status="failed", reason_code=reason_code, node_id=node_id))


def _timestamp(value: object) -> datetime | None:
    """An ``until`` expression gives an RFC 3339 string (or a CEL timestamp); it must be aware."""
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            return None
    else:
        return None
    return parsed if parsed.tzinfo is not None else None
