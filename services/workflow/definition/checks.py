"""Semantic checks of a definition: the collector, names, structure and context keys.

Each check appends :class:`FieldError`s and never stops early, so an author fixing a definition
sees every problem of one publish attempt at once. Here: the error collector, names, the
structure (ids, edges) and context keys; per-node rules in ``node_checks``, durations, deadlines
and timers in ``timer_checks``; graph-wide checks in ``validation``.
"""

from __future__ import annotations

from collections import Counter
from typing import Final

from contracts.errors import FieldError

from .graph import Graph, node_edges
from .messages import N_
from .model import (
    HUMAN_TYPES,
    Definition,
    EndNode,
    StartNode,
)

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
