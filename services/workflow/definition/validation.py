"""Semantic validation of a parsed definition: every check of the spec, all errors at once.

Parsing (msgspec) guarantees shapes and types; this module checks what needs the whole graph:
structure, registered names, reachability, parallel balance, dataflow and expressions. The
compiler reuses the same :class:`Analysis`, so nothing is computed (or compiled) twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from contracts.errors import DefinitionInvalid, FieldError

from .calls import call_errors
from .checks import Collector, check_context_keys, check_names, check_structure
from .dataflow import available_keys, dataflow_errors
from .event_gateways import event_gateway_errors
from .expressions import CompiledExpressions, compile_expressions
from .forkjoin import ForkJoin, analyse_forks
from .graph import Graph
from .messages import N_, NOT_VALID
from .model import (
    Definition,
    EndNode,
    EventGatewayNode,
    ExclusiveNode,
    InclusiveNode,
    ParallelNode,
    StartNode,
    SubprocessNode,
)
from .multi import multi_errors, multi_of
from .node_checks import check_nodes
from .ports import ExpressionCompiler, KnownNames, TableCompiler
from .subprocesses import check_subprocesses, scope_definition, scope_errors


@dataclass
class Analysis:
    """Everything learned while validating; ``errors`` empty means the definition is valid."""

    graph: Graph
    start: str | None
    reachable: set[str]
    forks: ForkJoin
    available: dict[str, frozenset[str]]
    expressions: CompiledExpressions
    errors: list[FieldError]


def _reachability(graph: Graph, start: str | None, out: Collector) -> set[str]:
    reachable = graph.reachable([start]) if start is not None else set()
    ends = [nid for nid, n in graph.nodes.items() if isinstance(n, EndNode)]
    finishing = graph.reachable(ends, reverse=True)
    for nid in graph.nodes:
        if start is not None and nid not in reachable:
            out.top(
                graph.path(nid),
                "unreachable",
                N_("Node `%(node)s` cannot be reached from the start node `%(start)s`."),
                node=nid,
                start=start,
            )
        if ends and nid not in finishing:
            out.top(
                graph.path(nid),
                "cannot_finish",
                N_(
                    "No path leads from node `%(node)s` to an "
                    "end node, so an instance there could never finish."
                ),
                node=nid,
            )
    return reachable


def _inline_cycles(graph: Graph, out: Collector) -> None:
    inline = {
        nid
        for nid, n in graph.nodes.items()
        if isinstance(n, ExclusiveNode | ParallelNode | InclusiveNode | EventGatewayNode)
    }
    for cycle in graph.cycles_within(inline):
        loop = " → ".join(f"`{n}`" for n in [*cycle, cycle[0]])
        out.top(
            graph.path(cycle[0]),
            "inline_cycle",
            N_(
                "Gateways %(loop)s form a loop with no "
                "task, step or timer in between; the engine would spin in it forever."
            ),
            loop=loop,
        )


def analyse(
    defn: Definition,
    known: KnownNames,
    compiler: ExpressionCompiler,
    tables: TableCompiler | None = None,
    *,
    stored: bool = False,
) -> Analysis:
    """Run every check and keep the intermediate results for the compiler. ``stored``: the
    definition is an already published version being loaded, so rules added since it was
    published (human names) are not applied to it; they bind new publications only."""
    graph = Graph.build(defn)
    out = Collector(graph)
    check_structure(defn, out)
    check_nodes(defn, known, out)
    check_subprocesses(defn, known, out)
    if not stored:
        check_names(defn, out)
    check_context_keys(defn, out)
    starts = [n.id for n in defn.nodes if isinstance(n, StartNode)]
    start = starts[0] if len(starts) == 1 else None
    reachable = _reachability(graph, start, out)
    _inline_cycles(graph, out)
    forks = analyse_forks(graph, start)
    out.errors.extend(forks.errors)
    out.errors.extend(event_gateway_errors(graph))
    for nid, node in graph.nodes.items():
        if multi_of(node) is not None:
            out.errors.extend(multi_errors(graph.path(nid), nid, node))
    out.errors.extend(call_errors(graph))
    available = available_keys(graph, start, reachable, forks) if start is not None else {}
    out.errors.extend(dataflow_errors(graph, available, forks))
    expressions = compile_expressions(graph, available, compiler, tables)
    out.errors.extend(expressions.errors)
    for nid, node in graph.nodes.items():
        if isinstance(node, SubprocessNode):
            inner = analyse(scope_definition(defn, node), known, compiler, tables, stored=stored)
            out.errors.extend(scope_errors(graph.path(nid), inner.errors))
    return Analysis(graph, start, reachable, forks, available, expressions, out.errors)


def validate(
    defn: Definition,
    known: KnownNames,
    compiler: ExpressionCompiler,
    tables: TableCompiler | None = None,
) -> list[FieldError]:
    """Every semantic problem of ``defn``, each ``{path, code, message}``; empty when valid.

    ``known`` is what is registered right now (there is no permissive mode) and ``compiler``
    compiles the CEL expressions; ``tables`` compiles decision tables when the rules package
    provides it (without it tables are only checked by shape).
    """
    return analyse(defn, known, compiler, tables).errors


def validate_or_raise(
    defn: Definition,
    known: KnownNames,
    compiler: ExpressionCompiler,
    tables: TableCompiler | None = None,
) -> None:
    """:func:`validate`, raising :class:`DefinitionInvalid` carrying all errors."""
    errors = validate(defn, known, compiler, tables)
    if errors:
        raise DefinitionInvalid(NOT_VALID, errors=errors, key=defn.key)
