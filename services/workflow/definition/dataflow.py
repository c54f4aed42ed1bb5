"""Which context keys are guaranteed to exist when a token reaches each node.

A must-analysis over the graph: a key is available at a node only if it was produced on *every*
path to it, so ``consumes`` never reads a missing key and expressions only see names that exist.

- The start node's ``produces`` is the instance input; ``available_in[start]`` is empty.
- After a node completes, its ``produces`` are added; a timer edge (interrupting or side path)
  leaves the task *unfinished*, so it carries the task's ``available_in``, not its output; so
  does an error route, plus the key it stores the error under.
- An ordinary node with several incoming flows (an exclusive merge, a loop head) gets the
  intersection; a parallel join gets the *union*, because every branch has finished there.
  An inclusive join gets the intersection too: only the branches whose condition held ran.
- Loops are handled by iterating to a fixpoint from "everything" downwards.
"""

from __future__ import annotations

from collections.abc import Mapping

from contracts.errors import FieldError

from .forkjoin import ForkJoin
from .graph import Edge, Graph
from .messages import N_
from .model import InclusiveNode, StartNode
from .multi import outputs


def _carried(edge: Edge, inp: Mapping[str, frozenset[str]], graph: Graph) -> frozenset[str]:
    if edge.kind == "flow":
        return inp[edge.source] | frozenset(outputs(graph.nodes[edge.source]))
    return inp[edge.source] | frozenset(edge.writes)


def available_keys(
    graph: Graph, start: str, reachable: set[str], forks: ForkJoin
) -> dict[str, frozenset[str]]:
    """``available_in`` for every reachable node (unreachable nodes are left out)."""
    universe = frozenset(k for n in graph.nodes.values() for k in outputs(n)) | frozenset(
        k for edges in graph.out.values() for e in edges for k in e.writes
    )
    inp: dict[str, frozenset[str]] = {nid: universe for nid in reachable}
    inp[start] = frozenset()
    joins = {j for j in forks.pairs.values() if not isinstance(graph.nodes[j], InclusiveNode)}
    order = sorted(reachable, key=graph.index.__getitem__)
    changed = True
    while changed:
        changed = False
        for nid in order:
            if nid == start:
                continue
            carried = [_carried(e, inp, graph) for e in graph.inc[nid] if e.source in reachable]
            if not carried:
                continue
            new = frozenset().union(*carried) if nid in joins else frozenset.intersection(*carried)
            if new != inp[nid]:
                inp[nid] = new
                changed = True
    return inp


def dataflow_errors(
    graph: Graph, available: Mapping[str, frozenset[str]], forks: ForkJoin
) -> list[FieldError]:
    """Missing ``consumes`` and keys written by two parallel branches at once."""
    errors: list[FieldError] = []
    for nid, node in graph.nodes.items():
        if nid not in available or isinstance(node, StartNode):
            continue
        for key in node.consumes:
            if key not in available[nid]:
                errors.append(
                    FieldError.of(
                        f"{graph.path(nid)}.consumes",
                        "consumes_not_produced",
                        N_(
                            "Node `%(node)s` consumes `%(key)s`, but `%(key)s` is not produced "
                            "on every path that leads to it (nor given as input by the start)."
                        ),
                        node=nid,
                        key=key,
                    )
                )
    for fork, scopes in forks.scopes.items():
        writes = [{k for n in scope for k in graph.nodes[n].produces} for scope in scopes]
        for i in range(len(writes)):
            for j in range(i + 1, len(writes)):
                for key in sorted(writes[i] & writes[j]):
                    errors.append(
                        FieldError.of(
                            graph.path(fork),
                            "parallel_write_conflict",
                            N_(
                                "Branches %(first)s and %(second)s of fork `%(fork)s` both "
                                "produce `%(key)s`; parallel branches must write different "
                                "keys, or the result would depend on which finished last."
                            ),
                            first=i,
                            second=j,
                            fork=fork,
                            key=key,
                        )
                    )
    return errors
