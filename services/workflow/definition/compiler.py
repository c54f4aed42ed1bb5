"""Compile a valid definition into the read-only model the runtime walks.

``decide()`` runs for every event of every instance, so whatever can be computed once per
published version is computed here: the graph in both directions, the fork/join pairing, the
compiled conditions, timer durations and each node's queue.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from types import MappingProxyType
from typing import Final

from contracts.errors import DefinitionInvalid

from .durations import parse_duration
from .graph import is_join
from .messages import NOT_VALID
from .model import (
    HUMAN_TYPES,
    ApprovalNode,
    CallNode,
    DecisionTableNode,
    Definition,
    InclusiveNode,
    IntegrationNode,
    ManualTaskNode,
    Node,
    NotificationNode,
    ServiceTaskNode,
    SubprocessNode,
    TimerNode,
    UserTaskNode,
    ValidationNode,
    ValidationRule,
    checksum,
)
from .ports import Condition, ExpressionCompiler, KnownNames, TableCompiler
from .subprocesses import scope_definition
from .validation import analyse

WORKER_QUEUES: Final[Mapping[type[Node], str]] = MappingProxyType(
    {
        ApprovalNode: "approval",
        UserTaskNode: "approval",
        ManualTaskNode: "approval",
        ValidationNode: "validation",
        DecisionTableNode: "validation",
        ServiceTaskNode: "integration",
        IntegrationNode: "integration",
        NotificationNode: "notification",
        TimerNode: "timer",
    }
)
"""Default worker queue per node type; start, gateways and end run inline (no queue)."""


@dataclass(frozen=True, slots=True)
class CompiledModel:
    """A published version, ready to run. Read-only; shared by every instance of the version.

    ``queues`` maps each node that needs a worker to its worker queue (a service task may name
    its own); ``task_queues`` maps human nodes to the human queue their tasks are assigned to.
    ``timer_durations`` is keyed by ``(node_id, timer_id)``; an intermediate timer node uses its
    own id as timer id. ``priorities`` holds each human node's priority rule (condition, level);
    ``multi`` each multi-instance node's ``over`` and ``complete_when`` (or none).
    ``available`` lists the context keys guaranteed at each node. ``inclusive_reach`` maps each
    inclusive join to the nodes from which a token can still arrive at it (not through itself):
    the join fires when no live token rests on one of them. ``scopes`` holds the model of each
    embedded sub-process by node id (its key ``<key>.<node id>``); ``escalates``, in such a
    model, the error codes its sub-process catches: a business error none of its own routes
    takes fails the child with that code instead, for the parent's boundary event.
    """

    definition: Definition
    checksum: str
    start: str
    nodes: Mapping[str, Node]
    successors: Mapping[str, tuple[str, ...]]
    predecessors: Mapping[str, tuple[str, ...]]
    fork_join: Mapping[str, str]
    join_fork: Mapping[str, str]
    join_incoming: Mapping[str, int]
    inclusive_reach: Mapping[str, frozenset[str]]
    branches: Mapping[str, tuple[tuple[Condition, str], ...]]
    until: Mapping[str, Condition]
    rules: Mapping[str, tuple[tuple[ValidationRule, Condition], ...]]
    tables: Mapping[str, object]
    priorities: Mapping[str, tuple[Condition, int]]
    multi: Mapping[str, tuple[Condition, Condition | None]]
    calls: Mapping[str, tuple[tuple[str, Condition], ...]]
    timer_durations: Mapping[tuple[str, str], timedelta]
    queues: Mapping[str, str]
    task_queues: Mapping[str, str]
    pending_queues: Mapping[str, str]
    available: Mapping[str, frozenset[str]]
    searchable: frozenset[str]
    personal: frozenset[str]
    scopes: Mapping[str, CompiledModel] = field(default_factory=lambda: MappingProxyType({}))
    escalates: frozenset[str] = frozenset()

    @property
    def key(self) -> str:
        return self.definition.key

    def scope(self, key: str) -> CompiledModel:
        """This model, or the one of its (nested) embedded sub-process keyed ``key``."""
        if key == self.key:
            return self
        for inner in self.scopes.values():
            if key == inner.key or key.startswith(f"{inner.key}."):
                return inner.scope(key)
        raise KeyError(key)


def _queue_of(node: Node) -> str | None:
    if isinstance(node, ServiceTaskNode) and node.queue is not None:
        return node.queue
    return WORKER_QUEUES.get(type(node))


def _durations(defn: Definition) -> dict[tuple[str, str], timedelta]:
    out: dict[tuple[str, str], timedelta] = {}
    for node in defn.nodes:
        if isinstance(node, TimerNode) and node.duration is not None:
            out[(node.id, node.id)] = parse_duration(node.duration)
        if isinstance(node, (*HUMAN_TYPES, CallNode, SubprocessNode)):
            for timer in node.timers:
                if timer.duration is not None:
                    out[(node.id, timer.id)] = parse_duration(timer.duration)
    return out


def compile_definition(
    defn: Definition,
    known: KnownNames,
    compiler: ExpressionCompiler,
    tables: TableCompiler | None = None,
    *,
    stored: bool = False,
    escalates: frozenset[str] = frozenset(),
) -> CompiledModel:
    """Validate ``defn`` (raising :class:`DefinitionInvalid` with every error) and compile it;
    ``stored`` for a version published earlier (see ``validation.analyse``); ``escalates`` for
    an embedded sub-process (see :class:`CompiledModel`)."""
    analysis = analyse(defn, known, compiler, tables, stored=stored)
    if analysis.errors:
        raise DefinitionInvalid(
            NOT_VALID,
            errors=analysis.errors,
            key=defn.key,
        )
    graph = analysis.graph
    assert analysis.start is not None
    queues = {nid: q for nid, n in graph.nodes.items() if (q := _queue_of(n)) is not None}
    pending = {
        nid: n.failure.pending_queue or f"{defn.key}.operators"
        for nid, n in graph.nodes.items()
        if nid in queues and not isinstance(n, (*HUMAN_TYPES, TimerNode))
    }
    ro = MappingProxyType
    return CompiledModel(
        definition=defn,
        checksum=checksum(defn),
        start=analysis.start,
        nodes=ro(dict(graph.nodes)),
        successors=ro({nid: tuple(e.target for e in es) for nid, es in graph.out.items()}),
        predecessors=ro({nid: tuple(e.source for e in es) for nid, es in graph.inc.items()}),
        fork_join=ro(dict(analysis.forks.pairs)),
        join_fork=ro({j: f for f, j in analysis.forks.pairs.items()}),
        join_incoming=ro({j: analysis.forks.branches[f] for f, j in analysis.forks.pairs.items()}),
        inclusive_reach=ro(
            {
                nid: graph.reaching(nid)
                for nid, n in graph.nodes.items()
                if isinstance(n, InclusiveNode) and is_join(n)
            }
        ),
        branches=ro(dict(analysis.expressions.branches)),
        until=ro(dict(analysis.expressions.until)),
        rules=ro(dict(analysis.expressions.rules)),
        tables=ro(dict(analysis.expressions.tables)),
        priorities=ro(dict(analysis.expressions.priorities)),
        multi=ro(dict(analysis.expressions.multi)),
        calls=ro(dict(analysis.expressions.calls)),
        timer_durations=ro(_durations(defn)),
        queues=ro(queues),
        task_queues=ro(
            {nid: n.queue for nid, n in graph.nodes.items() if isinstance(n, HUMAN_TYPES)}
        ),
        pending_queues=ro(pending),
        available=ro(dict(analysis.available)),
        searchable=frozenset(defn.searchable),
        personal=frozenset(defn.personal),
        scopes=ro(
            {
                nid: compile_definition(
                    scope_definition(defn, n),
                    known,
                    compiler,
                    tables,
                    stored=stored,
                    escalates=frozenset(r.code for r in n.errors),
                )
                for nid, n in graph.nodes.items()
                if isinstance(n, SubprocessNode)
            }
        ),
        escalates=escalates,
    )
