"""Parallel balance: pair every fork with the one join that closes it, or say why not.

The rule (documented in ``docs/definition-format.md``): walk each branch of a fork ``F`` from its
first node, stepping over nested fork/join blocks as a whole, until it reaches a join. Then

Inclusive gateways (``inclusive``) follow the same rule: a fork with ``branches`` pairs with an
inclusive join, which waits only for the branches whose condition held.

1. every branch reaches the *same* join ``J`` (possibly through several flows, e.g. after an
   exclusive gateway inside the branch), and every flow into ``J`` comes from one of ``F``'s
   branches (or straight from ``F``). At run time ``J`` fires once per fork, when the token of
   every branch has arrived (tokens are named after their branch, so the count is per branch,
   not per flow);
2. branches are disjoint: no node is shared by two branches, and no node inside a branch is
   entered from outside it (no jumping into or across fork scopes);
3. a branch never loops back to ``F`` (loops stay inside a branch or go around the whole block);
4. a branch may leave only through ``J`` or an ``end`` whose result is not ``completed`` (such
   an end finishes the whole instance); reaching a ``completed`` end would strand the join;
5. side paths started by non-interrupting timers never reach a join nor merge into the path
   their task is on; they finish at an ``end``.

A join that no fork's branches reach, or that is reached outside any fork, is an error too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from contracts.errors import FieldError

from .gateways import inclusive_shape
from .graph import Edge, Graph, fork_targets, is_fork, is_join, join_next
from .messages import N_
from .model import EndNode, InclusiveNode, ParallelNode


@dataclass
class _Walk:
    main: set[str] = field(default_factory=set)
    side: set[str] = field(default_factory=set)
    side_origin: dict[str, Edge] = field(default_factory=dict)
    join_edges: list[tuple[str, str]] = field(default_factory=list)

    @property
    def nodes(self) -> set[str]:
        return self.main | self.side


@dataclass
class ForkJoin:
    """The analysis result: ``pairs`` only holds forks whose block is fully balanced."""

    pairs: dict[str, str] = field(default_factory=dict)
    branches: dict[str, int] = field(default_factory=dict)
    scopes: dict[str, list[set[str]]] = field(default_factory=dict)
    errors: list[FieldError] = field(default_factory=list)


class _Analysis:
    def __init__(self, graph: Graph) -> None:
        self.g = graph
        self.result = ForkJoin()
        self.done: dict[str, str | None] = {}
        self.in_progress: set[str] = set()
        self.joins_reached: set[str] = set()
        self._seen_errors: set[tuple[str, str, str]] = set()

    def error(self, node_id: str, code: str, template: str, **params: str | int) -> None:
        problem = FieldError.of(self.g.path(node_id), code, template, **params)
        key = (problem.path, code, problem.message)
        if key not in self._seen_errors:
            self._seen_errors.add(key)
            self.result.errors.append(problem)

    def walk(self, fork: str | None, first: str, pred: str | None) -> _Walk:
        found = _Walk()
        stack: list[tuple[str | None, str, Edge | None]] = [(pred, first, None)]
        while stack:
            src, nid, side_origin = stack.pop()
            is_side = side_origin is not None
            if fork is not None and nid == fork:
                self.error(
                    fork,
                    "parallel_unbalanced",
                    N_(
                        "A branch of fork `%(fork)s` leads back to the fork before reaching a "
                        "join; a loop must stay inside one branch or go around the whole fork "
                        "and join."
                    ),
                    fork=fork,
                )
                continue
            node = self.g.nodes[nid]
            if is_join(node):
                self.joins_reached.add(nid)
                if side_origin is not None:
                    self._side_error(
                        side_origin,
                        N_(
                            "The side path started by `%(label)s` of `%(source)s` reaches join "
                            "`%(node)s`; a non-interrupting timer's path must stay separate and "
                            "finish at an end node."
                        ),
                        nid,
                    )
                elif src is not None:
                    found.join_edges.append((src, nid))
                continue
            if isinstance(node, EndNode):  # ends may be shared: they hold no token
                finishes = node.result == "completed" and not node.compensate
                if fork is not None and not is_side and finishes:
                    self.error(
                        fork,
                        "parallel_unbalanced",
                        N_(
                            "A branch of fork `%(fork)s` can reach end `%(node)s` (result "
                            "completed) without passing through its join; that token would "
                            "finish while the join waits forever. Route it to the join, or end "
                            "with another result."
                        ),
                        fork=fork,
                        node=nid,
                    )
                continue
            mine, other = (found.side, found.main) if is_side else (found.main, found.side)
            if nid in mine:
                continue
            if nid in other:
                origin = side_origin or found.side_origin.get(nid)
                if origin is not None:
                    self._side_error(
                        origin,
                        N_(
                            "The side path started by `%(label)s` of `%(source)s` rejoins the "
                            "main path at `%(node)s`; a non-interrupting timer's path must stay "
                            "separate and finish at an end node."
                        ),
                        nid,
                    )
                continue
            mine.add(nid)
            if side_origin is not None:
                found.side_origin[nid] = side_origin
            if is_fork(node):
                join = self.match(nid)
                if join is None:
                    continue
                for scope in self.result.scopes[nid]:
                    mine.update(scope)
                mine.add(join)
                after = join_next(self.g.nodes[join])
                if after in self.g.nodes:
                    stack.append((join, after, side_origin))
                continue
            for edge in self.g.out[nid]:
                origin = edge if edge.kind == "side" else side_origin
                stack.append((nid, edge.target, origin))
        return found

    def _side_error(self, edge: Edge, template: str, node_id: str) -> None:
        self.error(
            edge.source,
            "side_path_unbalanced",
            template,
            label=edge.label,
            source=edge.source,
            node=node_id,
        )

    def match(self, fork: str) -> str | None:
        if fork in self.done:
            return self.done[fork]
        if fork in self.in_progress:
            self.error(
                fork,
                "parallel_unbalanced",
                N_(
                    "Fork `%(fork)s` is reached again from inside its own branches through "
                    "another fork; fork/join blocks must nest, not overlap."
                ),
                fork=fork,
            )
            return None
        self.in_progress.add(fork)
        join = self._match(fork)
        self.in_progress.discard(fork)
        self.done[fork] = join
        return join

    def _match(self, fork: str) -> str | None:
        listed = fork_targets(self.g.nodes[fork])
        targets = [t for t in listed if t in self.g.nodes]
        if len(set(listed)) != len(listed):
            self.error(
                fork,
                "parallel_shape",
                N_("Fork `%(fork)s` lists the same branch twice."),
                fork=fork,
            )
            return None
        if len(targets) != len(listed) or len(targets) < 2:
            return None  # dangling targets or shape: reported elsewhere
        walks = [self.walk(fork, first, fork) for first in targets]
        ok = True
        for i, wi in enumerate(walks):
            for j in range(i + 1, len(walks)):
                shared = sorted(wi.nodes & walks[j].nodes, key=self.g.index.__getitem__)
                if shared:
                    ok = False
                    self.error(
                        fork,
                        "parallel_unbalanced",
                        N_(
                            "Branches %(first)s and %(second)s of fork `%(fork)s` share node "
                            "`%(node)s`; parallel branches must stay separate until their join."
                        ),
                        first=i,
                        second=j,
                        fork=fork,
                        node=shared[0],
                    )
        everything = set().union(*(w.nodes for w in walks))
        for i, w in enumerate(walks):
            for nid in sorted(w.nodes, key=self.g.index.__getitem__):
                for edge in self.g.inc[nid]:
                    if edge.source not in w.nodes and edge.source != fork:
                        if edge.source in everything:
                            continue  # a crossing, reported above
                        ok = False
                        self.error(
                            fork,
                            "parallel_unbalanced",
                            N_(
                                "Node `%(node)s` is inside branch %(branch)s of fork `%(fork)s` "
                                "but is also entered from `%(source)s` outside it; a fork's "
                                "branches can only be entered through the fork."
                            ),
                            node=nid,
                            branch=i,
                            fork=fork,
                            source=edge.source,
                        )
        joins = {j for w in walks for _, j in w.join_edges}
        if not joins:
            self.error(
                fork,
                "parallel_unbalanced",
                N_("The branches of fork `%(fork)s` never meet at a join."),
                fork=fork,
            )
            return None
        if len(joins) > 1:
            names = ", ".join(f"`{j}`" for j in sorted(joins, key=self.g.index.__getitem__))
            self.error(
                fork,
                "parallel_unbalanced",
                N_(
                    "The branches of fork `%(fork)s` reach different joins (%(joins)s); every "
                    "branch must meet at the same join."
                ),
                fork=fork,
                joins=names,
            )
            return None
        (join,) = joins
        inclusive = isinstance(self.g.nodes[fork], InclusiveNode)
        if inclusive != isinstance(self.g.nodes[join], InclusiveNode):
            self.error(
                fork,
                "gateway_kind_mismatch",
                N_(
                    "The branches of fork `%(fork)s` meet at join `%(join)s`, a gateway of "
                    "another kind; an inclusive fork closes with an inclusive join and a "
                    "parallel fork with a parallel join."
                ),
                fork=fork,
                join=join,
            )
            return None
        for i, w in enumerate(walks):
            if not any(j == join for _, j in w.join_edges):
                ok = False
                self.error(
                    fork,
                    "parallel_unbalanced",
                    N_(
                        "Branch %(branch)s of fork `%(fork)s` never reaches join `%(join)s`; "
                        "every branch must be able to arrive at the join."
                    ),
                    branch=i,
                    fork=fork,
                    join=join,
                )
        for edge in self.g.inc[join]:
            if edge.source not in everything and edge.source != fork:
                ok = False
                self.error(
                    join,
                    "parallel_unbalanced",
                    N_(
                        "Join `%(join)s` closes fork `%(fork)s` but is also entered from "
                        "`%(source)s`, outside the fork's branches."
                    ),
                    join=join,
                    fork=fork,
                    source=edge.source,
                )
        if not ok:
            return None
        self.result.pairs[fork] = join
        self.result.branches[fork] = len(targets)
        self.result.scopes[fork] = [w.nodes for w in walks]
        return join


def analyse_forks(graph: Graph, start: str | None) -> ForkJoin:
    """Pair forks with joins and report every unbalanced block (see the module docstring)."""
    analysis = _Analysis(graph)
    for nid, node in graph.nodes.items():
        if isinstance(node, InclusiveNode):
            analysis.result.errors.extend(inclusive_shape(graph, nid, node))
            continue
        if not isinstance(node, ParallelNode):
            continue
        incoming = len(graph.inc[nid])
        if isinstance(node.next, str):
            if incoming < 2:
                analysis.error(
                    nid,
                    "parallel_shape",
                    N_(
                        "Parallel gateway `%(node)s` neither forks (a list of at least two "
                        "`next` ids) nor joins (at least two incoming flows); it has %(count)s "
                        "incoming."
                    ),
                    node=nid,
                    count=incoming,
                )
        elif len(node.next) < 2:
            analysis.error(
                nid,
                "parallel_shape",
                N_("Fork `%(fork)s` must list at least two branches in `next`."),
                fork=nid,
            )
    if start is not None:
        top = analysis.walk(None, start, None)
        for src, join in top.join_edges:
            analysis.error(
                join,
                "parallel_unbalanced",
                N_(
                    "Join `%(join)s` is reached from `%(source)s` outside any fork's branches; a "
                    "join can only close a fork."
                ),
                join=join,
                source=src,
            )
    for nid, node in graph.nodes.items():
        if is_fork(node):
            analysis.match(nid)
    paired = list(analysis.result.pairs.values())
    for nid, node in graph.nodes.items():
        if not is_join(node) or len(graph.inc[nid]) < 2:
            continue
        if paired.count(nid) > 1:
            analysis.error(
                nid,
                "parallel_unbalanced",
                N_("Join `%(join)s` closes more than one fork."),
                join=nid,
            )
        elif nid not in analysis.joins_reached:
            analysis.error(
                nid, "parallel_unbalanced", N_("Join `%(join)s` does not close any fork."), join=nid
            )
    return analysis.result
