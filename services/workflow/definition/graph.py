"""The definition as a directed graph: edges with their origin field, reachability, cycles.

Validation, the fork/join analysis, the dataflow analysis and the compiler all walk the same
graph, so edges are extracted once here, each remembering which field it came from (for error
paths) and what kind of move it is (a completion, an interrupting timer or a side path).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from .model import (
    HUMAN_TYPES,
    ApprovalNode,
    CallNode,
    Definition,
    EventGatewayNode,
    ExclusiveNode,
    InclusiveNode,
    Node,
    ParallelNode,
    ServiceTaskNode,
    SubprocessNode,
    UserTaskNode,
)

EdgeKind = Literal["flow", "interrupt", "side", "error"]


class Edge(NamedTuple):
    """One possible move of a token: ``kind`` is ``flow`` after the node completes,
    ``interrupt`` when an interrupting timer cancels it, ``side`` when a non-interrupting timer
    starts a new token, ``error`` when the node's handler raised a business error its
    ``errors`` route (``writes``: the context key that route stores the error under)."""

    source: str
    target: str
    label: str
    kind: EdgeKind
    writes: tuple[str, ...] = ()


def node_edges(node: Node) -> list[Edge]:
    """Every outgoing reference of a node, in document order, targets not yet checked."""
    out: list[Edge] = []
    if isinstance(node, ExclusiveNode) or (isinstance(node, InclusiveNode) and node.branches):
        for i, branch in enumerate(node.branches):
            out.append(Edge(node.id, branch.next, f"branches[{i}].next", "flow"))
        if node.default is not None:
            out.append(Edge(node.id, node.default, "default", "flow"))
        return out
    if isinstance(node, EventGatewayNode) or (
        isinstance(node, ParallelNode) and not isinstance(node.next, str)
    ):
        return [Edge(node.id, t, f"next[{i}]", "flow") for i, t in enumerate(node.next)]
    outcomes = node.outcomes if isinstance(node, ApprovalNode | UserTaskNode) else None
    if outcomes:
        out.extend(Edge(node.id, t, f"outcomes.{name}", "flow") for name, t in outcomes.items())
    nxt = getattr(node, "next", None)
    if isinstance(nxt, str):
        out.append(Edge(node.id, nxt, "next", "flow"))
    if isinstance(node, ServiceTaskNode | CallNode | SubprocessNode):
        for i, route in enumerate(node.errors):
            stored = (route.store,) if route.store else ()
            out.append(Edge(node.id, route.next, f"errors[{i}].next", "error", stored))
    if isinstance(node, (*HUMAN_TYPES, CallNode, SubprocessNode)):
        for i, timer in enumerate(node.timers):
            if timer.next is not None:
                kind: EdgeKind = "interrupt" if timer.interrupting else "side"
                out.append(Edge(node.id, timer.next, f"timers[{i}].next", kind))
    return out


def is_fork(node: Node) -> bool:
    """A parallel fork, or an inclusive gateway that forks (it has branches)."""
    if isinstance(node, InclusiveNode):
        return bool(node.branches)
    return isinstance(node, ParallelNode) and not isinstance(node.next, str)


def is_join(node: Node) -> bool:
    """A parallel join, or an inclusive gateway that joins (no branches, one ``next``)."""
    if isinstance(node, InclusiveNode):
        return not node.branches and node.next is not None
    return isinstance(node, ParallelNode) and isinstance(node.next, str)


def fork_targets(node: Node) -> list[str]:
    """Where a fork's branches start: a parallel fork's ``next`` list, an inclusive fork's
    branch targets followed by its default."""
    if isinstance(node, InclusiveNode):
        default = [node.default] if node.default is not None else []
        return [b.next for b in node.branches] + default
    assert isinstance(node, ParallelNode) and not isinstance(node.next, str)
    return list(node.next)


def join_next(node: Node) -> str:
    """Where a join sends the merged token."""
    assert isinstance(node, ParallelNode | InclusiveNode) and isinstance(node.next, str)
    return node.next


@dataclass
class Graph:
    """Nodes by id (first occurrence wins on duplicates) and edges whose targets exist."""

    definition: Definition
    nodes: dict[str, Node] = field(default_factory=dict)
    index: dict[str, int] = field(default_factory=dict)
    out: dict[str, list[Edge]] = field(default_factory=dict)
    inc: dict[str, list[Edge]] = field(default_factory=dict)

    @classmethod
    def build(cls, defn: Definition) -> Graph:
        graph = cls(defn)
        for i, node in enumerate(defn.nodes):
            if node.id not in graph.nodes:
                graph.nodes[node.id] = node
                graph.index[node.id] = i
        for nid in graph.nodes:
            graph.out[nid] = []
            graph.inc[nid] = []
        for nid, node in graph.nodes.items():
            for edge in node_edges(node):
                if edge.target in graph.nodes:
                    graph.out[nid].append(edge)
                    graph.inc[edge.target].append(edge)
        return graph

    def path(self, node_id: str) -> str:
        """The spec's path for a node: ``nodes[3] (review)``."""
        return f"nodes[{self.index[node_id]}] ({node_id})"

    def successors(self, node_id: str) -> Iterator[str]:
        return (e.target for e in self.out[node_id])

    def reachable(self, roots: Iterable[str], *, reverse: bool = False) -> set[str]:
        """Nodes reachable from ``roots`` (following edges backwards when ``reverse``)."""
        seen: set[str] = set()
        stack = [r for r in roots if r in self.nodes]
        while stack:
            nid = stack.pop()
            if nid in seen:
                continue
            seen.add(nid)
            edges = self.inc[nid] if reverse else self.out[nid]
            stack.extend(e.source if reverse else e.target for e in edges)
        return seen

    def reaching(self, target: str) -> frozenset[str]:
        """Nodes from which a token can still arrive at ``target`` without passing through
        ``target`` itself (``target`` excluded): what an inclusive join waits on."""
        seen: set[str] = set()
        stack = [e.source for e in self.inc[target]]
        while stack:
            nid = stack.pop()
            if nid in seen or nid == target:
                continue
            seen.add(nid)
            stack.extend(e.source for e in self.inc[nid])
        return frozenset(seen)

    def cycles_within(self, members: set[str]) -> list[list[str]]:
        """Strongly connected components of the subgraph on ``members`` that contain a cycle.

        Used to find loops made only of gateways, which would spin inside one decision.
        """
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        on_stack: set[str] = set()
        stack: list[str] = []
        found: list[list[str]] = []
        counter = 0

        def visit(root: str) -> None:
            nonlocal counter
            work: list[tuple[str, Iterator[str]]] = []
            index[root] = low[root] = counter
            counter += 1
            stack.append(root)
            on_stack.add(root)
            work.append((root, iter([t for t in self.successors(root) if t in members])))
            while work:
                nid, children = work[-1]
                child = next(children, None)
                if child is not None:
                    if child not in index:
                        index[child] = low[child] = counter
                        counter += 1
                        stack.append(child)
                        on_stack.add(child)
                        succ = [t for t in self.successors(child) if t in members]
                        work.append((child, iter(succ)))
                    elif child in on_stack:
                        low[nid] = min(low[nid], index[child])
                    continue
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[nid])
                if low[nid] == index[nid]:
                    component: list[str] = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == nid:
                            break
                    self_loop = nid in set(self.successors(nid))
                    if len(component) > 1 or self_loop:
                        found.append(sorted(component, key=self.index.__getitem__))

        for nid in sorted(members, key=self.index.__getitem__):
            if nid not in index:
                visit(nid)
        return found
