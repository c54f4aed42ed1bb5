"""The persisted state of one instance, as plain data the pure ``decide()`` folds over.

Everything the engine needs to continue an instance after a crash is here; nothing lives in a
worker's memory. The state is a function of the definition version and the event log, which is
what :func:`runtime.transitions.replay` checks.
"""

from __future__ import annotations

from typing import Any, Final, Literal

import msgspec

STATE_FORMAT: Final = 1

TokenStatus = Literal["active", "waiting", "arrived_at_join", "pending", "held"]
"""``active``: a step is scheduled on a worker queue. ``waiting``: a person or a timer must act.
``arrived_at_join``: parked until every branch of its fork arrives (at an inclusive join:
until no other live token can still reach the join). ``pending``: a partner
rejected the step's data (4xx) and an operator's pending task is open. ``held``: the retry
ceiling was exceeded and the node's policy holds it in the dead letter for reprocessing."""

InstanceStatus = Literal[
    "created",
    "running",
    "waiting",
    "stalled",
    "compensating",
    "completed",
    "rejected",
    "expired",
    "failed",
    "cancelled",
]
"""``created`` before ``Started``; while tokens live: ``stalled`` if one needs an operator
(pending/held), else ``running`` if a step is scheduled, else ``waiting``. ``compensating``
runs saga compensations before ``failed`` (after a compensation end: before its result).
Terminal: ``completed``/``rejected``/``expired`` (the end node's result), ``failed``,
``cancelled``."""

TERMINAL: Final[frozenset[str]] = frozenset(
    {"completed", "rejected", "expired", "failed", "cancelled"}
)


class _Data(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class Token(_Data, frozen=True, kw_only=True):
    """A position in the graph. Ids are deterministic: the root is ``t``, the branches of a
    fork are ``<parent>.0``, ``<parent>.1``... (merged back into ``<parent>`` by the join) and a
    side path started by a non-interrupting timer is ``<token>.<timer_id>@<attempt_group>``."""

    id: str
    node_id: str
    attempt_group: int
    status: TokenStatus


class CompletedNode(_Data, frozen=True, kw_only=True):
    """A node the instance finished, in order; ``compensation`` is what a saga would run."""

    node_id: str
    attempt_group: int
    actor: str | None = None
    compensation: str | None = None


class PendingTimer(_Data, frozen=True, kw_only=True):
    """A timer started and not yet fired nor cancelled; an intermediate timer node uses its own
    id as ``timer_id``."""

    token_id: str
    node_id: str
    attempt_group: int
    timer_id: str


class Vote(_Data, frozen=True, kw_only=True):
    """One person's vote on a quorum task, kept until the task is decided."""

    token_id: str
    node_id: str
    attempt_group: int
    actor: str
    outcome: str


class MultiRun(_Data, frozen=True, kw_only=True):
    """A multi-instance node at work: the token that entered it (its tasks' tokens are
    ``<token_id>.<i>``, one per item), the items as they were when it was entered, each
    task's output once it completed (``None`` until then) and how many tasks were opened."""

    token_id: str
    node_id: str
    attempt_group: int
    items: tuple[Any, ...]
    results: tuple[dict[str, Any] | None, ...]
    opened: int


class PendingCompensation(_Data, frozen=True, kw_only=True):
    """A saga compensation still to run, in reverse completion order (first = next to run)."""

    node_id: str
    attempt_group: int
    handler: str


class Ending(_Data, frozen=True, kw_only=True):
    """How the instance ends once its compensations have run, when a compensation end
    (``node_id``) or a cancellation (no node) asked for them: with ``status``."""

    status: InstanceStatus
    node_id: str | None = None


class FailureInfo(_Data, frozen=True, kw_only=True):
    """Why the instance failed: a code and the node, never data from the context. ``cause``
    is the failed rule's own code (``timeout``, ``division_by_zero``, ``activation_too_large``,
    ``missing_variable``...) when a condition or a timer's ``until`` failed at run time."""

    reason_code: str
    node_id: str | None = None
    cause: str | None = None


class InstanceState(_Data, frozen=True, kw_only=True):
    """Current state of an instance. ``version`` grows by exactly one per applied event and is
    the optimistic-locking column; ``entries`` counts how many times each node was entered and
    is the source of ``attempt_group`` (it does not change on a retry or a reprocess).
    ``catches`` are the error codes an enclosing scope in another instance catches (from
    ``Started``): a business error no route here takes fails this child for them."""

    format: int = STATE_FORMAT
    status: InstanceStatus = "created"
    version: int = 0
    tokens: tuple[Token, ...] = ()
    context: dict[str, Any] = {}
    entries: dict[str, int] = {}
    completed_nodes: tuple[CompletedNode, ...] = ()
    timers: tuple[PendingTimer, ...] = ()
    votes: tuple[Vote, ...] = ()
    multi: tuple[MultiRun, ...] = ()
    compensations: tuple[PendingCompensation, ...] = ()
    author: str | None = None
    failure: FailureInfo | None = None
    ending: Ending | None = None
    catches: tuple[str, ...] = ()

    @property
    def finished(self) -> bool:
        return self.status in TERMINAL


def initial_state() -> InstanceState:
    """The state of an instance that was created but has not received ``Started`` yet."""
    return InstanceState()
