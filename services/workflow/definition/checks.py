"""Per-node semantic checks: shapes, targets, registered names, timers and policies.

Each check appends :class:`FieldError`s and never stops early, so an author fixing a definition
sees every problem of one publish attempt at once. Graph-wide checks live in ``validation``.
"""

from __future__ import annotations

from collections import Counter
from typing import Final

from contracts.errors import FieldError

from .durations import DurationError, parse_duration
from .graph import Graph, node_edges
from .messages import N_
from .model import (
    HUMAN_TYPES,
    INLINE_TYPES,
    WORK_TYPES,
    ApprovalNode,
    BoundaryTimer,
    DeadlineRef,
    Definition,
    EndNode,
    ExclusiveNode,
    ServiceTaskNode,
    StartNode,
    TimerNode,
    UserTaskNode,
    ValidationNode,
    node_type,
)
from .ports import BUILTIN_QUEUES, KnownNames

CEL_RESERVED: Final = frozenset(
    {
        *("true", "false", "null", "in", "as", "break", "const", "continue", "else", "for"),
        *("function", "if", "import", "let", "loop", "package", "namespace", "return", "var"),
        *("void", "while"),
    }
)


class Collector:
    """Accumulates errors with the node path prefix the spec asks for."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.errors: list[FieldError] = []

    def at(
        self, index: int, node_id: str, suffix: str, code: str, template: str, **params: str | int
    ) -> None:
        """An error on node ``node_id``; ``template`` (an ``N_`` msgid) may use ``%(node)s``."""
        path = f"nodes[{index}] ({node_id})" + (f".{suffix}" if suffix else "")
        self.errors.append(FieldError.of(path, code, template, node=node_id, **params))

    def top(self, path: str, code: str, template: str, **params: str | int) -> None:
        self.errors.append(FieldError.of(path, code, template, **params))


MAX_NAME: Final = 200


def check_names(defn: Definition, out: Collector) -> None:
    """A node a person works on (approval, user or manual task) carries the name people read
    on their inbox and task pages (pt-BR); its id is for the machine."""
    for i, node in enumerate(defn.nodes):
        if not isinstance(node, HUMAN_TYPES):
            continue
        name = (node.name or "").strip()
        if not name:
            out.at(
                i,
                node.id,
                "name",
                "missing_name",
                N_(
                    "Node `%(node)s` is worked on by a person and needs a `name` they can read "
                    '(such as "Analisar o pedido").'
                ),
            )
        elif len(name) > MAX_NAME:
            out.at(
                i,
                node.id,
                "name",
                "name_too_long",
                N_("The name of node `%(node)s` is longer than %(max)s characters."),
                max=MAX_NAME,
            )


def check_structure(defn: Definition, out: Collector) -> None:
    """Ids unique, exactly one start, at least one end, targets exist, start/end shapes."""
    counts = Counter(n.id for n in defn.nodes)
    seen: set[str] = set()
    for i, node in enumerate(defn.nodes):
        if counts[node.id] > 1 and node.id in seen:
            out.at(
                i,
                node.id,
                "id",
                "duplicate_id",
                N_(
                    "The id `%(node)s` is used by more than one node; every node id must be unique."
                ),
            )
        seen.add(node.id)
        for edge in node_edges(node):
            if edge.target not in counts:
                out.at(
                    i,
                    node.id,
                    edge.label,
                    "unknown_target",
                    N_(
                        "Node `%(node)s` points `%(label)s` to `%(target)s`, "
                        "which is not a node of this definition."
                    ),
                    label=edge.label,
                    target=edge.target,
                )
    starts = [(i, n) for i, n in enumerate(defn.nodes) if isinstance(n, StartNode)]
    if not starts:
        out.top(
            "nodes", "no_start", N_("The definition needs exactly one start node; it has none.")
        )
    for i, node in starts[1:]:
        out.at(
            i,
            node.id,
            "",
            "multiple_starts",
            N_("Node `%(node)s` is a second start node; a definition has exactly one start."),
        )
    if not any(isinstance(n, EndNode) for n in defn.nodes):
        out.top("nodes", "no_end", N_("The definition needs at least one end node; it has none."))
    for i, node in starts:
        for edge in out.graph.inc.get(node.id, []):
            out.at(
                i,
                node.id,
                "",
                "start_has_incoming",
                N_(
                    "Start node `%(node)s` is the target "
                    "of `%(label)s` on `%(source)s`; nothing may flow into the start."
                ),
                label=edge.label,
                source=edge.source,
            )


_DURATION_PROBLEMS: Final = {
    "calendar_units": N_(
        "Node `%(node)s`: the duration %(text)s uses years or months, which have no fixed "
        "length; use days (P30D) or business_days instead."
    ),
    "not_iso": N_(
        "Node `%(node)s`: %(text)s is not an ISO 8601 duration such as PT48H, P2D or P1DT12H."
    ),
    "not_positive": N_("Node `%(node)s`: the duration %(text)s must be longer than zero."),
    "too_long": N_("Node `%(node)s`: the duration %(text)s is longer than ten years."),
}


def _check_duration(out: Collector, i: int, nid: str, suffix: str, text: str) -> None:
    try:
        parse_duration(text)
    except DurationError as exc:
        template = _DURATION_PROBLEMS.get(exc.reason, exc.template)
        out.at(i, nid, suffix, "invalid_duration", template, **exc.params)


def _check_deadline(
    out: Collector, i: int, nid: str, where: str, ref: DeadlineRef, known: KnownNames
) -> None:
    if ref.rule not in known.deadline_rules:
        out.at(
            i,
            nid,
            f"{where}.rule",
            "unknown_deadline_rule",
            N_("Node `%(node)s` names the deadline rule `%(rule)s`, which is not registered."),
            rule=ref.rule,
        )
    elif ref.extension and ref.rule not in known.extendable_rules:
        out.at(
            i,
            nid,
            f"{where}.extension",
            "rule_not_extendable",
            N_("Node `%(node)s` extends the deadline rule `%(rule)s`, which allows no extension."),
            rule=ref.rule,
        )


def _check_timer(
    out: Collector, i: int, nid: str, k: int, timer: BoundaryTimer, known: KnownNames
) -> None:
    where = f"timers[{k}]"
    given = [f for f in ("duration", "business_days", "deadline") if getattr(timer, f)]
    if len(given) != 1:
        out.at(
            i,
            nid,
            where,
            "timer_spec",
            N_(
                "Timer `%(timer)s` on node `%(node)s` needs exactly one of `duration`, "
                "`business_days` or `deadline`."
            ),
            timer=timer.id,
        )
    elif timer.duration is not None:
        _check_duration(out, i, nid, f"{where}.duration", timer.duration)
    elif timer.deadline is not None:
        _check_deadline(out, i, nid, f"{where}.deadline", timer.deadline, known)
    if timer.interrupting:
        if timer.next is None or timer.escalate_to is not None:
            out.at(
                i,
                nid,
                where,
                "timer_target",
                N_(
                    "Timer `%(timer)s` on node `%(node)s` is interrupting, so it needs `next` "
                    "(where the token goes) and cannot escalate."
                ),
                timer=timer.id,
            )
    elif (timer.next is None) == (timer.escalate_to is None):
        out.at(
            i,
            nid,
            where,
            "timer_target",
            N_(
                "Timer `%(timer)s` on node `%(node)s` is non-interrupting, so it needs exactly "
                "one of `next` (start a side path) or `escalate_to` (move the task)."
            ),
            timer=timer.id,
        )
    if timer.escalate_to is not None and timer.escalate_to not in known.queues:
        out.at(
            i,
            nid,
            f"{where}.escalate_to",
            "unknown_queue",
            N_(
                "Timer `%(timer)s` on node `%(node)s` escalates to queue `%(queue)s`, "
                "which is not registered."
            ),
            timer=timer.id,
            queue=timer.escalate_to,
        )


def check_nodes(defn: Definition, known: KnownNames, out: Collector) -> None:
    """Node-type shape rules and every registered name a node refers to."""
    for i, node in enumerate(defn.nodes):
        nid, kind = node.id, node_type(node)
        if isinstance(node, ApprovalNode) and len(node.outcomes) < 2:
            out.at(
                i,
                nid,
                "outcomes",
                "approval_outcomes",
                N_(
                    "Approval `%(node)s` needs at least "
                    "two outcomes (such as approve and reject); it has %(count)s."
                ),
                count=len(node.outcomes),
            )
        if isinstance(node, UserTaskNode) and (node.next is None) == (not node.outcomes):
            out.at(
                i,
                nid,
                "",
                "task_exits",
                N_("User task `%(node)s` needs exactly one of `next` or a non-empty `outcomes`."),
            )
        if isinstance(node, ExclusiveNode) and node.default is None:
            out.at(
                i,
                nid,
                "default",
                "exclusive_default",
                N_(
                    "Exclusive gateway `%(node)s` needs a "
                    "`default` target, taken when no branch condition is true."
                ),
            )
        if isinstance(node, TimerNode):
            fields = ("duration", "business_days", "deadline", "until")
            given = [f for f in fields if getattr(node, f)]
            if len(given) != 1:
                out.at(
                    i,
                    nid,
                    "",
                    "timer_spec",
                    N_(
                        "Timer `%(node)s` needs exactly one of `duration`, `business_days`, "
                        "`deadline` or `until`."
                    ),
                )
            elif node.duration is not None:
                _check_duration(out, i, nid, "duration", node.duration)
            elif node.deadline is not None:
                _check_deadline(out, i, nid, "deadline", node.deadline, known)
        if isinstance(node, HUMAN_TYPES):
            if node.queue not in known.queues:
                out.at(
                    i,
                    nid,
                    "queue",
                    "unknown_queue",
                    N_(
                        "Node `%(node)s` assigns its task to "
                        "queue `%(queue)s`, which is not registered."
                    ),
                    queue=node.queue,
                )
            ids = Counter(t.id for t in node.timers)
            for k, timer in enumerate(node.timers):
                if ids[timer.id] > 1:
                    out.at(
                        i,
                        nid,
                        f"timers[{k}].id",
                        "duplicate_id",
                        N_("Node `%(node)s` has two timers with id `%(timer)s`."),
                        timer=timer.id,
                    )
                _check_timer(out, i, nid, k, timer, known)
            for k, doc_type in enumerate(node.documents):
                if doc_type not in known.document_types:
                    out.at(
                        i,
                        nid,
                        f"documents[{k}]",
                        "unknown_document_type",
                        N_(
                            "Node `%(node)s` requires document type `%(type)s`, which is not "
                            "registered."
                        ),
                        type=doc_type,
                    )
        if isinstance(node, ApprovalNode | UserTaskNode):
            _check_task(defn, known, out, i, node)
        if (
            isinstance(node, ServiceTaskNode)
            and node.queue is not None
            and node.queue not in known.queues | BUILTIN_QUEUES
        ):
            out.at(
                i,
                nid,
                "queue",
                "unknown_queue",
                N_("Service task `%(node)s` runs on queue `%(queue)s`, which is not registered."),
                queue=node.queue,
            )
        handler = getattr(node, "handler", None)
        if isinstance(handler, str) and handler not in known.handlers:
            out.at(
                i,
                nid,
                "handler",
                "unknown_handler",
                N_("Node `%(node)s` calls handler `%(handler)s`, which is not registered."),
                handler=handler,
            )
        if node.compensation is not None:
            if isinstance(node, (*INLINE_TYPES, TimerNode)):
                out.at(
                    i,
                    nid,
                    "compensation",
                    "compensation_not_allowed",
                    N_(
                        "Node `%(node)s` is a %(type)s node, which does no work that could be "
                        "compensated."
                    ),
                    type=kind,
                )
            elif node.compensation not in known.handlers:
                out.at(
                    i,
                    nid,
                    "compensation",
                    "unknown_handler",
                    N_(
                        "Node `%(node)s` names "
                        "compensation handler `%(handler)s`, which is not registered."
                    ),
                    handler=node.compensation,
                )
        if node.requires and isinstance(node, (*INLINE_TYPES, TimerNode)):
            out.at(
                i,
                nid,
                "requires",
                "requires_not_allowed",
                N_(
                    "Node `%(node)s` is a %(type)s node; "
                    "the engine runs it inline and cannot fetch provider data. Fetch it in a "
                    "step that produces it."
                ),
                type=kind,
            )
        for k, req in enumerate(node.requires):
            if req not in known.providers:
                out.at(
                    i,
                    nid,
                    f"requires[{k}]",
                    "unknown_provider",
                    N_(
                        "Node `%(node)s` requires `%(key)s`, which no registered data provider "
                        "supplies."
                    ),
                    key=req,
                )
        if isinstance(node, WORK_TYPES):
            _check_failure(defn, known, out, i, node)
        if isinstance(node, ValidationNode):
            for rid, n in Counter(r.id for r in node.rules).items():
                if n > 1:
                    out.at(
                        i,
                        nid,
                        "rules",
                        "duplicate_id",
                        N_("Validation `%(node)s` has %(count)s rules with id `%(rule)s`."),
                        count=n,
                        rule=rid,
                    )


def _check_task(
    defn: Definition, known: KnownNames, out: Collector, i: int, node: ApprovalNode | UserTaskNode
) -> None:
    nid = node.id
    if node.form is not None and node.form not in known.forms:
        out.at(
            i,
            nid,
            "form",
            "unknown_form",
            N_("Node `%(node)s` uses form `%(form)s`, which is not registered."),
            form=node.form,
        )
    for outcome, fields in node.outcome_requires.items():
        if outcome not in (node.outcomes or {}):
            out.at(
                i,
                nid,
                f"outcome_requires.{outcome}",
                "unknown_outcome",
                N_(
                    "Node `%(node)s` requires data for outcome `%(outcome)s`, which it does not "
                    "have."
                ),
                outcome=outcome,
            )
        for field in fields:
            if field not in node.produces:
                out.at(
                    i,
                    nid,
                    f"outcome_requires.{outcome}",
                    "undeclared_key",
                    N_(
                        "Node `%(node)s` requires `%(key)s` for outcome `%(outcome)s` but does "
                        "not declare it in `produces`."
                    ),
                    key=field,
                    outcome=outcome,
                )
    for outcome, name in node.outcome_names.items():
        if outcome not in (node.outcomes or {}):
            out.at(
                i,
                nid,
                f"outcome_names.{outcome}",
                "unknown_outcome",
                N_("Node `%(node)s` names outcome `%(outcome)s`, which it does not have."),
                outcome=outcome,
            )
        elif not name.strip():
            out.at(
                i,
                nid,
                f"outcome_names.{outcome}",
                "missing_name",
                N_("Node `%(node)s` gives outcome `%(outcome)s` a blank name."),
                outcome=outcome,
            )
    humans = {n.id for n in defn.nodes if isinstance(n, HUMAN_TYPES)}
    for k, other in enumerate(node.policy.exclude_completers_of):
        if other not in humans:
            out.at(
                i,
                nid,
                f"policy.exclude_completers_of[{k}]",
                "unknown_target",
                N_(
                    "Node `%(node)s` excludes the completers of `%(other)s`, which is not a "
                    "human task of this definition."
                ),
                other=other,
            )
    quorum = node.policy.quorum
    if quorum is not None:
        outcomes = node.outcomes or {}
        if not outcomes:
            out.at(
                i,
                nid,
                "policy.quorum",
                "quorum_outcomes",
                N_("Node `%(node)s` has a quorum but no `outcomes` to vote on."),
            )
        elif quorum.reject_ends and "reject" not in outcomes:
            out.at(
                i,
                nid,
                "policy.quorum",
                "quorum_outcomes",
                N_(
                    "Node `%(node)s` lets a rejection "
                    "end the vote (`reject_ends`) but has no `reject` outcome."
                ),
            )


def _check_failure(
    defn: Definition, known: KnownNames, out: Collector, i: int, node: object
) -> None:
    assert isinstance(node, WORK_TYPES)
    policy = node.failure
    if policy.backoff_cap_s < policy.backoff_base_s:
        out.at(
            i,
            node.id,
            "failure.backoff_cap_s",
            "out_of_range",
            N_("Node `%(node)s` has a backoff cap shorter than its base delay."),
        )
    if policy.on_validation_error == "pending_task":
        queue = policy.pending_queue or f"{defn.key}.operators"
        if queue not in known.queues:
            suffix = "failure.pending_queue" if policy.pending_queue else "failure"
            out.at(
                i,
                node.id,
                suffix,
                "unknown_queue",
                N_(
                    "Node `%(node)s` opens pending tasks "
                    "in queue `%(queue)s` when a partner rejects its data, but that queue is "
                    "not registered (set `failure.pending_queue` or register it)."
                ),
                queue=queue,
            )


def check_context_keys(defn: Definition, out: Collector) -> None:
    """Keys are CEL variables, so reserved words are refused; searchable/personal must exist,
    and third-party keys are personal."""
    produced: set[str] = set()
    for i, node in enumerate(defn.nodes):
        produced.update(node.produces)
        for key in (*node.consumes, *node.produces):
            if key in CEL_RESERVED:
                out.at(
                    i,
                    node.id,
                    "",
                    "reserved_key",
                    N_(
                        "Node `%(node)s` uses the context key "
                        "`%(key)s`, which is a reserved word in expressions; rename it."
                    ),
                    key=key,
                )
    for field in ("searchable", "personal"):
        for k, key in enumerate(getattr(defn, field)):
            if key not in produced:
                out.top(
                    f"{field}[{k}]",
                    "unknown_key",
                    N_(
                        "`%(field)s` lists `%(key)s`, which no node produces (nor the start as "
                        "input)."
                    ),
                    field=field,
                    key=key,
                )
    for k, key in enumerate(defn.third_party):
        if key not in defn.personal:
            out.top(
                f"third_party[{k}]",
                "not_personal",
                N_("`third_party` lists `%(key)s`, which is not in `personal`; list it there too."),
                key=key,
            )
