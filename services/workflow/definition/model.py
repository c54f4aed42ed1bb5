"""The workflow definition format (format 1) as msgspec Structs, plus parsing and checksums.

The JSON document described in ``docs/definition-format.md`` is the canonical runtime format, so
these Structs *are* the schema: msgspec rejects unknown fields and wrong types while decoding, and
:mod:`.validation` adds the graph-level checks a schema cannot express. Every Struct is frozen so a
published version can be shared between threads and cached without defensive copies.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal, TypeAlias

import msgspec
from msgspec import Meta

from .multi import MultiInstance

FORMAT: Final = 1

Identifier = Annotated[str, Meta(pattern=r"^[a-z][a-z0-9_]*$", max_length=64)]
OutcomeName = Annotated[str, Meta(min_length=1, max_length=200)]
"""What a person reads for an outcome (pt-BR, such as "Deferir"); its id is for the machine."""
"""Node, timer, rule and outcome ids: safe in paths, CEL-free, stable in BPMN export."""

ContextKey = Annotated[str, Meta(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=64)]
"""Context keys double as CEL variable names, so they must be CEL identifiers."""

DottedName = Annotated[str, Meta(pattern=r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$", max_length=100)]
"""Registered names (handlers, queues, providers, definition keys) are dotted identifiers."""

FormRef = Annotated[
    str,
    Meta(pattern=r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*(@[1-9][0-9]*)?$", max_length=110),
]
PositiveSeconds = Annotated[float, Meta(gt=0)]


class _Strict(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Base for every part of a definition: immutable, keyword-only, unknown fields rejected."""


class PublicLabel(_Strict, frozen=True, kw_only=True):
    """What the citizen timeline shows while an instance is on this node."""

    label: Annotated[str, Meta(min_length=1, max_length=120)]


class FailurePolicy(_Strict, frozen=True, kw_only=True):
    """How a node that runs work fails; the defaults are the spec's (5 attempts, 1 s → 30 s)."""

    max_attempts: Annotated[int, Meta(ge=1, le=100)] = 5
    backoff_base_s: PositiveSeconds = 1.0
    backoff_cap_s: PositiveSeconds = 30.0
    jitter: bool = True
    timeout_s: PositiveSeconds = 30.0
    on_validation_error: Literal["pending_task", "fail"] = "pending_task"
    on_exhausted: Literal["fail", "hold"] = "hold"
    pending_queue: DottedName | None = None


DEFAULT_FAILURE: Final = FailurePolicy()


class DeadlineRef(_Strict, frozen=True, kw_only=True):
    """A legal deadline by rule key (``lai.request``), counted with the jurisdiction's calendar
    and receipt rule. ``extension``: this timer is the rule's extension, counted from the due
    day of the instance's previous timer with the same id (the deadline in force)."""

    rule: Annotated[str, Meta(min_length=1, max_length=100)]
    extension: bool = False


class BoundaryTimer(_Strict, frozen=True, kw_only=True):
    """A timer attached to a human task: interrupts it, or starts a side path, or escalates."""

    id: Identifier
    duration: str | None = None
    business_days: Annotated[int, Meta(ge=1, le=3650)] | None = None
    deadline: DeadlineRef | None = None
    interrupting: bool = True
    next: str | None = None
    escalate_to: DottedName | None = None


class Quorum(_Strict, frozen=True, kw_only=True):
    """How many matching votes decide an approval; ``reject_ends`` lets one rejection decide."""

    required: Annotated[int, Meta(ge=1, le=100)]
    reject_ends: bool = True


class Policy(_Strict, frozen=True, kw_only=True):
    """Separation of duties and quorum for a human task."""

    exclude_author: bool = False
    exclude_completers_of: tuple[Identifier, ...] = ()
    quorum: Quorum | None = None


DEFAULT_POLICY: Final = Policy()


class ValidationRule(_Strict, frozen=True, kw_only=True):
    """One declarative check on a validation node: ``expr`` is CEL and true means valid."""

    id: Identifier
    expr: Annotated[str, Meta(min_length=1, max_length=4000)]
    message: Annotated[str, Meta(min_length=1, max_length=500)]
    severity: Literal["error", "warning"] = "error"


PRIORITY_LEVELS: Final = {"normal": 0, "high": 5, "urgent": 9}
"""A task's priority by name (the pages offer these three levels; a person may set 0 to 9)."""


class PriorityRule(_Strict, frozen=True, kw_only=True):
    """How urgent a human node's task is, decided when the task opens: when the CEL ``when``
    over the case context is true, the task opens at ``level`` (else at normal priority)."""

    when: Annotated[str, Meta(min_length=1, max_length=4000)]
    level: Literal["high", "urgent"]


class Branch(_Strict, frozen=True, kw_only=True):
    """One guarded branch of an exclusive gateway, tried in list order."""

    when: Annotated[str, Meta(min_length=1, max_length=4000)]
    next: str


class _NodeBase(_Strict, tag_field="type", frozen=True, kw_only=True):
    """Fields every node has; ``type`` is the msgspec tag that selects the subclass."""

    id: Identifier
    name: str | None = None
    consumes: tuple[ContextKey, ...] = ()
    produces: tuple[ContextKey, ...] = ()
    requires: tuple[DottedName, ...] = ()
    public: PublicLabel | None = None
    failure: FailurePolicy = DEFAULT_FAILURE
    compensation: DottedName | None = None


class StartNode(_NodeBase, tag="start", frozen=True, kw_only=True):
    next: str


class ValidationNode(_NodeBase, tag="validation", frozen=True, kw_only=True):
    rules: Annotated[tuple[ValidationRule, ...], Meta(min_length=1)]
    next: str


class ApprovalNode(_NodeBase, tag="approval", frozen=True, kw_only=True):
    queue: DottedName
    form: FormRef | None = None
    policy: Policy = DEFAULT_POLICY
    documents: tuple[DottedName, ...] = ()
    """Document types the process must hold (current) before this task completes."""
    timers: tuple[BoundaryTimer, ...] = ()
    priority: PriorityRule | None = None
    outcomes: dict[Identifier, str]
    outcome_requires: dict[Identifier, tuple[ContextKey, ...]] = {}
    """Data a person must give when choosing an outcome (a justification for an extension)."""
    outcome_names: dict[Identifier, OutcomeName] = {}
    """The words on each outcome's button and in the history (pt-BR); an outcome left out
    shows the standard word for its id (``approve`` → "Aprovar") or the id itself."""


class UserTaskNode(_NodeBase, tag="user_task", frozen=True, kw_only=True):
    queue: DottedName
    form: FormRef | None = None
    policy: Policy = DEFAULT_POLICY
    documents: tuple[DottedName, ...] = ()
    """Document types the process must hold (current) before this task completes."""
    timers: tuple[BoundaryTimer, ...] = ()
    priority: PriorityRule | None = None
    next: str | None = None
    outcomes: dict[Identifier, str] | None = None
    outcome_requires: dict[Identifier, tuple[ContextKey, ...]] = {}
    """Data a person must give when choosing an outcome (a justification for an extension)."""
    outcome_names: dict[Identifier, OutcomeName] = {}
    """The words on each outcome's button and in the history (pt-BR); an outcome left out
    shows the standard word for its id (``approve`` → "Aprovar") or the id itself."""
    multi: MultiInstance | None = None


class ManualTaskNode(_NodeBase, tag="manual_task", frozen=True, kw_only=True):
    queue: DottedName
    documents: tuple[DottedName, ...] = ()
    """Document types the process must hold (current) before this task completes."""
    timers: tuple[BoundaryTimer, ...] = ()
    priority: PriorityRule | None = None
    next: str


ErrorCode = Annotated[str, Meta(pattern=r"^([a-z][a-z0-9_]*|\*)$", max_length=64)]
"""A business error code (``payment_refused``) or ``*``, the catch-all."""


class ErrorRoute(_Strict, frozen=True, kw_only=True):
    """An error boundary event: the handler's ``BusinessError(code)`` sends the token to
    ``next``; ``store`` names the context key that receives ``{"code", "details"}``."""

    code: ErrorCode
    next: str
    store: ContextKey | None = None


class ServiceTaskNode(_NodeBase, tag="service_task", frozen=True, kw_only=True):
    handler: DottedName
    queue: DottedName | None = None
    next: str
    errors: tuple[ErrorRoute, ...] = ()


class IntegrationNode(ServiceTaskNode, tag="integration", frozen=True, kw_only=True):
    """``integration`` is an alias of ``service_task``; it keeps its own tag for round trips."""


class NotificationNode(_NodeBase, tag="notification", frozen=True, kw_only=True):
    handler: DottedName
    template: str | None = None
    next: str


class TimerNode(_NodeBase, tag="timer", frozen=True, kw_only=True):
    duration: str | None = None
    business_days: Annotated[int, Meta(ge=1, le=3650)] | None = None
    deadline: DeadlineRef | None = None
    until: Annotated[str, Meta(min_length=1, max_length=4000)] | None = None
    next: str


class ExclusiveNode(_NodeBase, tag="exclusive", frozen=True, kw_only=True):
    branches: Annotated[tuple[Branch, ...], Meta(min_length=1)]
    default: str | None = None


class ParallelNode(_NodeBase, tag="parallel", frozen=True, kw_only=True):
    """A fork when ``next`` is a list, a join when it is one id (see the balance rule)."""

    next: str | tuple[str, ...]


class InclusiveNode(_NodeBase, tag="inclusive", frozen=True, kw_only=True):
    """An OR gateway (BPMN 2.0 §13.3.3): a fork with ``branches``, a join with ``next``."""

    branches: tuple[Branch, ...] = ()
    default: str | None = None
    next: str | None = None


class EventGatewayNode(_NodeBase, tag="event_gateway", frozen=True, kw_only=True):
    """An event-based gateway (BPMN 2.0 §13.3.5): each ``next`` is a catch (a timer, or a task
    a message completes through ``POST /api/v1/messages``); the first to happen wins and the
    others are cancelled in the same decision."""

    next: Annotated[tuple[str, ...], Meta(min_length=2)]


class CallNode(_NodeBase, tag="call", frozen=True, kw_only=True):
    """A call activity: starts a child instance of ``definition`` (``version``, else the one
    published when the token arrives, pinned), its context from ``in`` (child key: CEL over
    this context); waits, then copies ``out`` (key here: the child's key) and takes ``next``.
    A child ending other than ``completed`` is the error ``child_failed`` for ``errors``."""

    definition: DottedName
    version: Annotated[int, Meta(ge=1)] | None = None
    inputs: dict[ContextKey, Annotated[str, Meta(min_length=1, max_length=4000)]] = msgspec.field(
        default_factory=dict, name="in"
    )
    out: dict[ContextKey, ContextKey] = {}
    next: str
    errors: tuple[ErrorRoute, ...] = ()
    timers: tuple[BoundaryTimer, ...] = ()


class SubprocessNode(_NodeBase, tag="subprocess", frozen=True, kw_only=True):
    """An embedded sub-process: its own ``nodes`` run as a child instance of this version;
    ``timers`` and ``errors`` are its boundary events (docs/definition-format.md)."""

    nodes: Annotated[tuple[Node, ...], Meta(min_length=1)]
    next: str
    timers: tuple[BoundaryTimer, ...] = ()
    errors: tuple[ErrorRoute, ...] = ()


class DecisionTableNode(_NodeBase, tag="decision_table", frozen=True, kw_only=True):
    """The table stays opaque here; the rules package owns its format and compilation."""

    table: dict[str, Any]
    next: str


class EndNode(_NodeBase, tag="end", frozen=True, kw_only=True):
    """Ends the token (the instance when it is the last one, or at once when ``result`` is not
    ``completed``). ``compensate``: a compensation end — every other token is dropped, the
    completed nodes' ``compensation`` handlers run most recent first, then the instance ends
    with ``result``."""

    result: Literal["completed", "rejected", "expired", "failed"] = "completed"
    compensate: bool | None = None


Node: TypeAlias = (
    StartNode
    | ValidationNode
    | ApprovalNode
    | UserTaskNode
    | ManualTaskNode
    | ServiceTaskNode
    | IntegrationNode
    | NotificationNode
    | TimerNode
    | ExclusiveNode
    | ParallelNode
    | InclusiveNode
    | EventGatewayNode
    | CallNode
    | SubprocessNode
    | DecisionTableNode
    | EndNode
)

HumanNode: TypeAlias = ApprovalNode | UserTaskNode | ManualTaskNode
WorkNode: TypeAlias = (
    ValidationNode | ServiceTaskNode | IntegrationNode | NotificationNode | DecisionTableNode
)
HUMAN_TYPES: Final = (ApprovalNode, UserTaskNode, ManualTaskNode)
WORK_TYPES: Final = (
    ValidationNode,
    ServiceTaskNode,
    IntegrationNode,
    NotificationNode,
    DecisionTableNode,
)
INLINE_TYPES: Final = (
    StartNode,
    ExclusiveNode,
    ParallelNode,
    InclusiveNode,
    EventGatewayNode,
    EndNode,
)


class Retention(_Strict, frozen=True, kw_only=True):
    """LGPD retention: how long personal values outlive the instance's end.

    After ``personal_days`` from ``ended_at`` the values of ``personal`` context keys and of
    personal form fields are purged; history, audit and the protocol number stay.
    """

    personal_days: Annotated[int, Meta(ge=0, le=36500)]


class Access(_Strict, frozen=True, kw_only=True):
    """The access level every case of the definition starts with (staff with
    ``workflow.classify`` may change one case's level later). ``restricted`` and ``secret``
    need a legal ground (*hipótese legal*), a key of the configured list that publishing
    checks (``runtime.services.access``)."""

    level: Literal["public", "restricted", "secret"]
    ground: Annotated[str, Meta(min_length=1, max_length=100)] | None = None

    def __post_init__(self) -> None:
        if self.level != "public" and self.ground is None:
            raise ValueError("a restricted or secret level needs a legal ground")


class Definition(_Strict, frozen=True, kw_only=True):
    """A whole workflow definition; ``nodes`` order is presentation only."""

    format: Literal[1]
    key: DottedName
    name: Annotated[str, Meta(min_length=1, max_length=200)]
    description: str | None = None
    protocol_prefix: Annotated[str, Meta(pattern=r"^[A-Z]{2,10}$")]
    subject_type: DottedName | None = None
    searchable: tuple[ContextKey, ...] = ()
    personal: tuple[ContextKey, ...] = ()
    third_party: tuple[ContextKey, ...] = ()
    """``personal`` keys that hold someone else's data than the person the case is about (a
    witness, a representative, a named civil servant): a subject export shows them only to
    the person they match."""
    retention: Retention | None = None
    access: Access | None = None
    """The cases' default access level; none: public."""
    nodes: Annotated[tuple[Node, ...], Meta(min_length=1)]


# Re-exported: the canonical form lives in canonical.py, parsing in parsing.py and node tags
# in tags.py (all need Definition or Node, defined above).
from .canonical import LATE_FIELDS as LATE_FIELDS  # noqa: E402
from .canonical import canonical_json as canonical_json  # noqa: E402
from .canonical import checksum as checksum  # noqa: E402
from .parsing import NOT_IN_FORMAT as NOT_IN_FORMAT  # noqa: E402
from .parsing import parse_definition as parse_definition  # noqa: E402
from .tags import node_type as node_type  # noqa: E402
