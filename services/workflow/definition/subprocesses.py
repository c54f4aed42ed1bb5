"""Embedded sub-processes: each ``subprocess`` node's ``nodes`` form a definition of their own.

A sub-process runs as a child instance of the same published version (like a call activity,
whose machinery it reuses: waiting, cancelling the child, routing its failure), so its nodes
are validated and compiled as a definition keyed ``<parent key>.<node id>`` that shares the
parent's header (protocol prefix, subject type, personal keys, retention, access) and whose
steps open their pending tasks in the parent's operators queue unless they name one. Its
boundary timers carry the token away (interrupting, cancelling the child) or start a side
path; they never escalate, since no task of this instance waits there (the same holds for
the boundary timers of a call activity, checked here too).
"""

from __future__ import annotations

from collections import Counter

import msgspec

from contracts.errors import FieldError

from .checks import Collector
from .messages import N_
from .model import WORK_TYPES, CallNode, Definition, Node, SubprocessNode
from .ports import KnownNames
from .timer_checks import check_timer


def _pending_in(nodes: tuple[Node, ...], queue: str) -> tuple[Node, ...]:
    out: list[Node] = []
    for node in nodes:
        if isinstance(node, WORK_TYPES) and node.failure.pending_queue is None:
            failure = msgspec.structs.replace(node.failure, pending_queue=queue)
            node = msgspec.structs.replace(node, failure=failure)
        elif isinstance(node, SubprocessNode):
            node = msgspec.structs.replace(node, nodes=_pending_in(node.nodes, queue))
        out.append(node)
    return tuple(out)


def scope_definition(defn: Definition, node: SubprocessNode) -> Definition:
    """The definition the sub-process ``node`` of ``defn`` runs as."""
    return msgspec.structs.replace(
        defn,
        key=f"{defn.key}.{node.id}",
        name=node.name or node.id,
        description=None,
        searchable=(),
        nodes=_pending_in(node.nodes, f"{defn.key}.operators"),
    )


def scope_errors(prefix: str, errors: list[FieldError]) -> list[FieldError]:
    """The sub-process's own errors, their paths under the node that holds it."""
    return [msgspec.structs.replace(e, path=f"{prefix}.{e.path}".rstrip(".")) for e in errors]


def check_subprocesses(defn: Definition, known: KnownNames, out: Collector) -> None:
    """Boundary timers of every sub-process and call: unique ids, a valid timing, a ``next``
    (the token waits for a child instance there, not on a task that could escalate)."""
    for i, node in enumerate(defn.nodes):
        if not isinstance(node, SubprocessNode | CallNode):
            continue
        ids = Counter(t.id for t in node.timers)
        for k, timer in enumerate(node.timers):
            if ids[timer.id] > 1:
                out.at(
                    i,
                    node.id,
                    f"timers[{k}].id",
                    "duplicate_id",
                    N_("Node `%(node)s` has two timers with id `%(timer)s`."),
                    timer=timer.id,
                )
            check_timer(out, i, node.id, k, timer, known)
            if timer.escalate_to is not None:
                out.at(
                    i,
                    node.id,
                    f"timers[{k}].escalate_to",
                    "subprocess_escalate",
                    N_(
                        "Timer `%(timer)s` on `%(node)s` cannot escalate: no task waits there. "
                        "Give it `next`."
                    ),
                    timer=timer.id,
                )
