"""Shape rules of the inclusive (OR) gateway: it forks or joins, never both.

Which fork a join closes is the fork/join analysis' business (:mod:`.forkjoin`); here only what
one gateway must look like on its own, each problem against the gateway's path.
"""

from __future__ import annotations

from contracts.errors import FieldError

from .graph import Graph
from .messages import N_
from .model import InclusiveNode


def inclusive_shape(graph: Graph, nid: str, node: InclusiveNode) -> list[FieldError]:
    """An inclusive gateway either forks (``branches``, optional ``default``) or joins
    (``next`` and at least two incoming flows), never both, as in the parallel case."""
    incoming = len(graph.inc[nid])
    if node.branches and node.next is not None:
        template = N_(
            "Inclusive gateway `%(node)s` has both `branches` (a fork) and `next` (a join); "
            "use two gateways, one to fork and one to join."
        )
    elif node.branches:
        if len(node.branches) + (node.default is not None) >= 2:
            return []
        template = N_(
            "Inclusive fork `%(node)s` needs at least two ways out (branches, or one branch "
            "and a `default`); with one, use an exclusive gateway."
        )
    elif node.next is None or node.default is not None:
        template = N_(
            "Inclusive gateway `%(node)s` neither forks (`branches`, with an optional "
            "`default`) nor joins (one `next`)."
        )
    elif incoming < 2:
        template = N_(
            "Inclusive join `%(node)s` needs at least two incoming flows; it has %(count)s."
        )
    else:
        return []
    return [FieldError.of(graph.path(nid), "inclusive_shape", template, node=nid, count=incoming)]
