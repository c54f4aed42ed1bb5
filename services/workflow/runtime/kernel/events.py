"""What can happen to an instance: the events ``decide()`` accepts, recorded as its log.

Each event carries ``at`` (the engine's clock when it was applied), so the log alone rebuilds the
state: :func:`runtime.transitions.replay` needs nothing else. Events addressing a token carry the
``attempt_group`` they were issued for, so a late message from an earlier loop iteration is
refused instead of moving the current token.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, TypeAlias

import msgspec


class _Event(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type"
):
    at: datetime


class Started(_Event, tag="started", frozen=True, kw_only=True):
    """The instance starts with ``input`` (exactly the start node's ``produces`` keys).
    ``actor`` is the author, used by ``exclude_author`` separation of duties. ``catches``: for
    a child, the error codes (or ``*``) that some enclosing scope catches — its call or
    sub-process node's error routes and those of every scope around that one."""

    input: dict[str, Any]
    actor: str | None = None
    catches: tuple[str, ...] = ()


class StepSucceeded(_Event, tag="step_succeeded", frozen=True, kw_only=True):
    """A worker finished a step; ``output`` holds exactly the node's ``produces`` keys."""

    token_id: str
    node_id: str
    attempt_group: int
    output: dict[str, Any] = {}


class StepFailedTerminal(_Event, tag="step_failed", frozen=True, kw_only=True):
    """A step will not succeed by retrying: ``exhausted`` (retry ceiling; the engine writes the
    dead letter) or ``rejected`` (a 4xx validation error from the partner)."""

    token_id: str
    node_id: str
    attempt_group: int
    reason_code: str
    kind: Literal["exhausted", "rejected"] = "exhausted"


class StepFailed(_Event, tag="step_attempt_failed", frozen=True, kw_only=True):
    """One attempt of a step (``kind`` ``step``) or of a compensation failed in a way a retry
    may fix. ``decide()`` answers with a retry (``ScheduleStep`` with the next ``attempt`` and
    its backoff) while ``used`` is under the node's ``max_attempts``, else with a
    ``DeadLetter`` (and, for a step, the ``StepFailedTerminal`` the log keeps). The event itself
    is never logged: a retry changes nothing on the instance.

    ``used`` counts the attempts of the current budget (an operator's retry or reprocess starts
    a fresh one); ``error`` is what is kept of the failure (type and codes, no free text) and
    ``payload`` the failed attempt's input, both for the dead letter."""

    token_id: str
    node_id: str
    attempt_group: int
    kind: Literal["step", "compensation"] = "step"
    step_run_id: str
    queue: str
    attempt: int
    used: int
    idempotency_key: str
    error: dict[str, Any] = {}
    payload: dict[str, Any] | None = None


class StepErrored(_Event, tag="step_errored", frozen=True, kw_only=True):
    """A step's handler raised a ``BusinessError``: ``code`` (an identifier) and ``details``
    (identifiers and numbers only). ``decide()`` takes the node's error route for the code
    (else its ``*`` route); without one, the step is rejected as for a partner's 4xx."""

    token_id: str
    node_id: str
    attempt_group: int
    code: str
    details: dict[str, Any] = {}


class TaskCompleted(_Event, tag="task_completed", frozen=True, kw_only=True):
    """A person completed a human task (``outcome`` for tasks with outcomes, else null), or an
    operator resolved a pending task (``outcome`` ``retry`` or ``fail``)."""

    token_id: str
    node_id: str
    attempt_group: int
    outcome: str | None = None
    data: dict[str, Any] = {}
    actor: str | None = None


class TimerFired(_Event, tag="timer_fired", frozen=True, kw_only=True):
    token_id: str
    node_id: str
    attempt_group: int
    timer_id: str


class ChildEnded(_Event, tag="child_ended", frozen=True, kw_only=True):
    """The child instance a call node started ended with ``status``; ``output`` holds the
    child's values of the keys the node's ``out`` copies (when it completed; an embedded
    sub-process's: its whole context); ``error`` the business error code it failed with."""

    token_id: str
    node_id: str
    attempt_group: int
    child_id: str
    status: str
    output: dict[str, Any] = {}
    error: str | None = None


class Cancelled(_Event, tag="cancelled", frozen=True, kw_only=True):
    """An operator cancelled the instance; ``reason`` is a code, not free text. ``compensate``:
    the completed nodes' compensations run first (a saga), then it is ``cancelled``."""

    reason: str
    actor: str | None = None
    compensate: bool = False


class Signalled(_Event, tag="signalled", frozen=True, kw_only=True):
    """An external signal completes the waiting ``user_task``/``manual_task`` whose id is
    ``name`` (``payload`` is its data, ``outcome`` as for :class:`TaskCompleted`)."""

    name: str
    payload: dict[str, Any] = {}
    outcome: str | None = None


class Reprocessed(_Event, tag="reprocessed", frozen=True, kw_only=True):
    """An operator puts a held (dead-lettered) or pending token back on its step."""

    token_id: str
    node_id: str
    attempt_group: int
    actor: str | None = None


class Abandoned(_Event, tag="abandoned", frozen=True, kw_only=True):
    """An operator gives up on a held or pending step: the instance fails (with compensation)."""

    token_id: str
    node_id: str
    attempt_group: int
    reason_code: str = "abandoned"
    actor: str | None = None


class TokenMove(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Where one token goes in a migration: ``keep`` leaves it (and its open task, step or
    timers) as it is on an unchanged node; ``reenter`` closes its work and enters ``to_node``
    afresh, with a new attempt group."""

    token_id: str
    from_node: str
    to_node: str
    action: Literal["keep", "reenter"]


class Migrated(_Event, tag="migrated", frozen=True, kw_only=True):
    """An operator moved the instance from one version of its definition to another.

    ``decide()`` applies it with the *target* version's model; every event before it was
    decided with the source version's, which is why replay switches models here. ``moves``
    covers every live token (the plan the dry run showed); ``mapping`` is kept for the trail.
    """

    from_version_id: str
    to_version_id: str
    from_version: int
    to_version: int
    mapping: dict[str, str] = {}
    moves: tuple[TokenMove, ...]
    actor: str | None = None


class Repaired(_Event, tag="repaired", frozen=True, kw_only=True):
    """An operator moved one token to another node of the same version (skip or redo a step).
    ``reason`` is a code; the operator's own words live only in the audit entry."""

    token_id: str
    from_node: str
    to_node: str
    attempt_group: int
    reason: str = "operator_repair"
    actor: str | None = None


class CompensationDone(_Event, tag="compensation_done", frozen=True, kw_only=True):
    """The compensation of ``node_id`` (that completion's ``attempt_group``) has run."""

    node_id: str
    attempt_group: int


Event: TypeAlias = (
    Started
    | StepSucceeded
    | StepFailedTerminal
    | StepFailed
    | StepErrored
    | TaskCompleted
    | TimerFired
    | Cancelled
    | Signalled
    | Reprocessed
    | Abandoned
    | CompensationDone
    | Migrated
    | Repaired
    | ChildEnded
)


def event_type(event: Event) -> str:
    tag = type(event).__struct_config__.tag
    assert isinstance(tag, str)
    return tag
