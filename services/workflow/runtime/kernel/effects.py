"""What a decision asks the engine to do, as data.

The engine turns every effect into rows (step runs, tasks, timers, history, outbox) inside the
same unit of work that stores the new state, so nothing happens unless the state is committed.
The order of ``Decision.effects`` is meaningful: it is the order things happened in.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, TypeAlias

import msgspec

from services.workflow.definition.model import Policy

from .events import Event
from .state import InstanceState


class _Effect(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type"
):
    pass


class ScheduleStep(_Effect, tag="schedule_step", frozen=True, kw_only=True):
    """Run node work on ``queue``; the idempotency key is (instance, node, attempt_group).
    ``handler`` is null for validation and decision-table nodes (the rules run them)."""

    token_id: str
    node_id: str
    attempt_group: int
    queue: str
    handler: str | None
    fresh: bool = False
    """The token entered the node anew: ``attempt_group`` is new, so no attempt of it exists yet
    (the unique attempt constraint backs this up). A retry or reprocess leaves it false."""
    kind: Literal["step", "compensation"] = "step"
    attempt: int | None = None
    """A retry's attempt number (``None``: one more than the last attempt stored)."""
    available_at: datetime | None = None
    """When a retry may run (its backoff); ``None``: at once."""


class OpenTask(_Effect, tag="open_task", frozen=True, kw_only=True):
    """Open a human task (``kind`` ``task``) or an operator's pending task after a partner
    rejected a step's data (``kind`` ``pending``, outcomes ``retry``/``fail``)."""

    token_id: str
    node_id: str
    attempt_group: int
    queue: str
    kind: Literal["task", "pending"] = "task"
    form: str | None = None
    outcomes: tuple[str, ...] = ()
    policy: Policy | None = None
    priority: int = 0
    priority_rule: str | None = None
    """The node whose priority rule set ``priority`` (``None``: no rule matched)."""
    priority_error: str | None = None
    """Why the node's priority rule could not be evaluated (the task opens at normal)."""
    data: dict[str, Any] | None = None
    """What the task starts with: a multi-instance task's item, under the node's ``item``."""
    multi: dict[str, Any] | None = None
    """A multi-instance task's place: ``item`` (the name), ``value``, ``index`` (from 0, the
    position in the list and in ``<node>_results``) and ``total`` (the items on entry)."""


class CloseTasks(_Effect, tag="close_tasks", frozen=True, kw_only=True):
    """Close the open task(s) of this token at this node (``reason``: completed, timer,
    reprocessed, instance_finished)."""

    token_id: str
    node_id: str
    attempt_group: int
    reason: str


class EscalateTask(_Effect, tag="escalate_task", frozen=True, kw_only=True):
    """A non-interrupting timer moves the still-open task to another queue."""

    token_id: str
    node_id: str
    attempt_group: int
    timer_id: str
    queue: str


class StartTimer(_Effect, tag="start_timer", frozen=True, kw_only=True):
    """Start a timer. ``due_at`` is set for ``duration`` and ``until``; for ``business_days``
    and a legal ``rule`` it is null and the engine computes it from ``starts_at`` with its
    legal calendar (``extension``: counted from the deadline in force)."""

    token_id: str
    node_id: str
    attempt_group: int
    timer_id: str
    interrupting: bool
    starts_at: datetime
    due_at: datetime | None = None
    business_days: int | None = None
    rule: str | None = None
    extension: bool = False


class CancelTimers(_Effect, tag="cancel_timers", frozen=True, kw_only=True):
    token_id: str
    node_id: str
    attempt_group: int
    timer_ids: tuple[str, ...]


class RunCompensation(_Effect, tag="run_compensation", frozen=True, kw_only=True):
    """Run one saga compensation; the engine answers with ``CompensationDone``. Emitted one at
    a time, in reverse completion order."""

    node_id: str
    attempt_group: int
    handler: str
    queue: str


class VoteRecorded(_Effect, tag="vote_recorded", frozen=True, kw_only=True):
    """A quorum vote that did not decide the task yet (for the audit trail)."""

    token_id: str
    node_id: str
    attempt_group: int
    actor: str
    outcome: str


class Transitioned(_Effect, tag="transitioned", frozen=True, kw_only=True):
    """One history entry: ``to_node`` null means the token was consumed (end, failure,
    cancellation); ``from_node`` equal to ``to_node`` is a status change in place."""

    token_id: str
    from_node: str | None
    to_node: str | None
    cause: str


class DeadLetter(_Effect, tag="dead_letter", frozen=True, kw_only=True):
    """A step (or compensation) used up its attempts: park it for an operator, who may
    reprocess or abandon it. ``last_error`` and ``payload`` are the last attempt's."""

    step_run_id: str
    token_id: str
    node_id: str
    kind: str
    attempt_group: int
    attempts: int
    reason: str = "retry_ceiling"
    last_error: dict[str, Any] = {}
    payload: dict[str, Any] | None = None


class StartChild(_Effect, tag="start_child", frozen=True, kw_only=True):
    """Start a child instance of ``definition`` (``version``, else the latest published) with
    ``input``, in this transaction; it belongs to this token at this node and attempt group.
    ``embedded``: ``definition`` is an embedded sub-process of this instance's own version.
    ``catches``: the error codes the child's enclosing scopes catch (its ``Started.catches``)."""

    token_id: str
    node_id: str
    attempt_group: int
    definition: str
    version: int | None = None
    embedded: bool = False
    input: dict[str, Any] = {}
    catches: tuple[str, ...] = ()


class InstanceFinished(_Effect, tag="instance_finished", frozen=True, kw_only=True):
    status: str
    reason_code: str | None = None
    node_id: str | None = None


Effect: TypeAlias = (
    ScheduleStep
    | OpenTask
    | CloseTasks
    | EscalateTask
    | StartTimer
    | CancelTimers
    | RunCompensation
    | VoteRecorded
    | Transitioned
    | InstanceFinished
    | DeadLetter
    | StartChild
)


class Decision(msgspec.Struct, frozen=True, kw_only=True):
    """The result of ``decide()``: the state to store and the effects to apply with it."""

    new_state: InstanceState
    effects: tuple[Effect, ...]
    logged: Event | None = None
    """The event the instance's log keeps when it is not the decided one (a ``StepFailed``
    out of attempts is logged as the ``StepFailedTerminal`` it became)."""
    unchanged: bool = False
    """The instance itself does not change (a retry, a compensation's dead letter, a failure
    the instance had already moved past): nothing is logged, the row is not written, only the
    effects are applied."""
