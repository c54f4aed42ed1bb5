"""Compile every expression of a definition through the injected compiler, collecting errors.

Validation and compilation share this walk, so a definition's expressions are compiled once at
publish time and the compiled conditions are kept in the :class:`CompiledModel`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from contracts.errors import FieldError, RuleError

from .graph import Graph
from .messages import N_
from .model import (
    HUMAN_TYPES,
    PRIORITY_LEVELS,
    CallNode,
    DecisionTableNode,
    ExclusiveNode,
    InclusiveNode,
    Node,
    TimerNode,
    ValidationNode,
    ValidationRule,
)
from .multi import COUNTERS, multi_of
from .ports import Condition, ExpressionCompiler, TableCompiler


@dataclass
class CompiledExpressions:
    """Compiled conditions by node id; ``branches`` keep the gateway's order."""

    branches: dict[str, tuple[tuple[Condition, str], ...]] = field(default_factory=dict)
    until: dict[str, Condition] = field(default_factory=dict)
    rules: dict[str, tuple[tuple[ValidationRule, Condition], ...]] = field(default_factory=dict)
    tables: dict[str, object] = field(default_factory=dict)
    priorities: dict[str, tuple[Condition, int]] = field(default_factory=dict)
    calls: dict[str, tuple[tuple[str, Condition], ...]] = field(default_factory=dict)
    """Call node id -> (child key, its ``in`` expression over this context), in order."""
    """Human node id -> (its priority rule's condition, the level it sets when true)."""
    multi: dict[str, tuple[Condition, Condition | None]] = field(default_factory=dict)
    """Multi-instance node id -> (its ``over`` list, its ``complete_when`` or none)."""
    errors: list[FieldError] = field(default_factory=list)


def variables_at(node: Node, available: frozenset[str]) -> frozenset[str]:
    """Names an expression on ``node`` may use: available context keys plus provider data.

    A requirement ``budget.balance`` is resolved by the runtime into the variable ``budget``
    (a map holding ``balance``), so the root segment is what CEL sees.
    """
    return available | {req.split(".", 1)[0] for req in node.requires}


def _short(expr: str) -> str:
    return expr if len(expr) <= 120 else expr[:117] + "..."


class _Compiling:
    def __init__(self, compiler: ExpressionCompiler, out: CompiledExpressions) -> None:
        self.compiler = compiler
        self.out = out

    def one(self, nid: str, expr: str, variables: frozenset[str], where: str) -> Condition | None:
        try:
            return self.compiler.compile(expr, variables=variables, where=where)
        except (RuleError, ValueError) as exc:
            for path, reason in _problems(exc, where):
                self.out.errors.append(
                    FieldError.of(
                        path,
                        "expression_invalid",
                        N_(
                            "The expression `%(expr)s` on node `%(node)s` does not compile: "
                            "%(reason)s"
                        ),
                        expr=_short(expr),
                        node=nid,
                        reason=reason,
                    )
                )
            return None


def _problems(exc: RuleError | ValueError, where: str) -> list[tuple[str, str]]:
    """Every problem a compiler reported (a RuleError may carry several ``errors``)."""
    if isinstance(exc, RuleError):
        if exc.errors:
            return [(e.path or where, e.message) for e in exc.errors]
        return [(where, exc.detail)]
    return [(where, str(exc))]


def compile_expressions(
    graph: Graph,
    available: Mapping[str, frozenset[str]],
    compiler: ExpressionCompiler,
    tables: TableCompiler | None,
) -> CompiledExpressions:
    """Compile branch conditions, ``until`` timers, validation rules, decision tables and the
    priority rules of human nodes.

    Unreachable nodes are compiled against every key the definition produces, so their syntax
    errors still show next to the reachability error.
    """
    out = CompiledExpressions()
    c = _Compiling(compiler, out)
    everything = frozenset(k for n in graph.nodes.values() for k in n.produces)
    for nid, node in graph.nodes.items():
        names = variables_at(node, available.get(nid, everything))
        base = graph.path(nid)
        if isinstance(node, HUMAN_TYPES) and node.priority is not None:
            urgency = node.priority
            cond = c.one(nid, urgency.when, names, f"{base}.priority.when")
            if cond is not None:
                out.priorities[nid] = (cond, PRIORITY_LEVELS[urgency.level])
        if (multi := multi_of(node)) is not None:
            over = c.one(nid, multi.over, names, f"{base}.multi.over")
            done = None
            if multi.complete_when is not None:
                where = f"{base}.multi.complete_when"
                done = c.one(nid, multi.complete_when, names | COUNTERS, where)
            if over is not None and (done is not None or multi.complete_when is None):
                out.multi[nid] = (over, done)
        if isinstance(node, ExclusiveNode | InclusiveNode) and node.branches:
            compiled: list[tuple[Condition, str]] = []
            for i, branch in enumerate(node.branches):
                cond = c.one(nid, branch.when, names, f"{base}.branches[{i}].when")
                if cond is not None:
                    compiled.append((cond, branch.next))
            if len(compiled) == len(node.branches):
                out.branches[nid] = tuple(compiled)
        elif isinstance(node, CallNode):
            inputs = [(k, c.one(nid, e, names, f"{base}.in.{k}")) for k, e in node.inputs.items()]
            out.calls[nid] = tuple((k, cond) for k, cond in inputs if cond is not None)
        elif isinstance(node, TimerNode) and node.until is not None:
            cond = c.one(nid, node.until, names, f"{base}.until")
            if cond is not None:
                out.until[nid] = cond
        elif isinstance(node, ValidationNode):
            rules: list[tuple[ValidationRule, Condition]] = []
            for i, rule in enumerate(node.rules):
                cond = c.one(nid, rule.expr, names, f"{base}.rules[{i}].expr")
                if cond is not None:
                    rules.append((rule, cond))
            out.rules[nid] = tuple(rules)
        elif isinstance(node, DecisionTableNode) and tables is not None:
            try:
                out.tables[nid] = tables.compile_table(
                    node.table, variables=names, where=f"{base}.table"
                )
            except (RuleError, ValueError) as exc:
                for path, reason in _problems(exc, f"{base}.table"):
                    out.errors.append(
                        FieldError.of(
                            path,
                            "table_invalid",
                            N_("The decision table on node `%(node)s` is invalid: %(reason)s"),
                            node=nid,
                            reason=reason,
                        )
                    )
    return out
