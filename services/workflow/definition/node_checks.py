"""Per-node semantic checks: shapes, targets, registered names, tasks and failure policies."""

from __future__ import annotations

from collections import Counter
from typing import Final

from .checks import Collector
from .messages import N_
from .model import (
    HUMAN_TYPES,
    INLINE_TYPES,
    WORK_TYPES,
    ApprovalNode,
    CallNode,
    Definition,
    ExclusiveNode,
    ServiceTaskNode,
    SubprocessNode,
    TimerNode,
    UserTaskNode,
    ValidationNode,
    node_type,
)
from .ports import BUILTIN_QUEUES, KnownNames
from .timer_checks import check_deadline, check_duration, check_timer

UNCOMPENSATED: Final = frozenset(
    str(kind.__struct_config__.tag) for kind in (*INLINE_TYPES, TimerNode)
)
"""The node types that do no work a compensation could undo: the engine runs them inline, or
they only wait."""
NOT_COMPENSABLE: Final = N_(
    "Node `%(node)s` is a %(type)s node, which does no work that could be compensated."
)


def compensable(kind: str) -> bool:
    """Whether a node of type ``kind`` may name a ``compensation`` (else
    ``compensation_not_allowed``; the draft editor refuses the same with this rule)."""
    return kind not in UNCOMPENSATED


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
                check_duration(out, i, nid, "duration", node.duration)
            elif node.deadline is not None:
                check_deadline(out, i, nid, "deadline", node.deadline, known)
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
                check_timer(out, i, nid, k, timer, known)
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
            if not compensable(kind):
                out.at(
                    i, nid, "compensation", "compensation_not_allowed", NOT_COMPENSABLE, type=kind
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
        if isinstance(node, ServiceTaskNode | CallNode | SubprocessNode):
            _check_error_routes(out, i, node)
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


def _check_error_routes(
    out: Collector, i: int, node: ServiceTaskNode | CallNode | SubprocessNode
) -> None:
    """One route per error code; a route's ``store`` key is not also a success output."""
    for code, n in Counter(r.code for r in node.errors).items():
        if n > 1:
            out.at(
                i,
                node.id,
                "errors",
                "duplicate_error_code",
                N_("Node `%(node)s` routes business error `%(error)s` %(count)s times."),
                error=code,
                count=n,
            )
    for k, route in enumerate(node.errors):
        if route.store is not None and route.store in node.produces:
            out.at(
                i,
                node.id,
                f"errors[{k}].store",
                "error_store_produced",
                N_(
                    "Node `%(node)s` stores business error `%(error)s` under `%(key)s`, which "
                    "it also produces on success; use a key of its own."
                ),
                error=route.code,
                key=route.store,
            )
