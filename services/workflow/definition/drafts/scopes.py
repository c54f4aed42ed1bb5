"""Embedded sub-processes in the draft editor: a *scope* is the path of ``subprocess`` node ids
from the definition down to the nodes being edited (empty: the definition's own nodes).

A ``subprocess`` node holds its ``nodes`` as a definition does, so every operation of
:mod:`.ops`, :mod:`.links` and :mod:`.props` works inside one unchanged: :func:`in_scope`
hands it the sub-process node as the document and puts the result back. The sub-process's own
transitions and boundary events (``next``, ``timers``, ``errors``) belong to the scope that
holds it, like any node's. The definition check names an inner node's problem by its JSON path
(``nodes[1] (analise).nodes[1] (conferir).handler``); :func:`steps_of_path` reads the chain of
ids back so the page can say ``analise \u203a conferir`` and link to that scope.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Final

from services.workflow.definition.drafts.ops import (
    IDENTIFIER,
    Applied,
    Document,
    UnknownNode,
    add_node,
    find,
    nodes_of,
)

Scope = tuple[str, ...]
MAX_DEPTH: Final = 10
SEPARATOR: Final = " \u203a "
_STEP: Final = re.compile(r"nodes\[(\d+)\](?: \(([A-Za-z0-9_.-]+)\))?")


def parse_scope(text: str | None) -> Scope:
    """``analise.revisao`` → ``("analise", "revisao")``; anything malformed names no node."""
    if not text:
        return ()
    parts = tuple(text.split("."))
    if len(parts) > MAX_DEPTH or not all(IDENTIFIER.match(p) for p in parts):
        raise UnknownNode(text)
    return parts


def scope_text(scope: Scope) -> str:
    return ".".join(scope)


def scope_node(document: Mapping[str, Any], scope: Scope) -> Mapping[str, Any]:
    """The sub-process node at ``scope`` (the document itself for the empty scope)."""
    holder: Mapping[str, Any] = document
    for node_id in scope:
        holder = find(holder, node_id)
        if holder.get("type") != "subprocess":
            raise UnknownNode(node_id)
    return holder


def in_scope(
    document: Mapping[str, Any], scope: Scope, operation: Callable[[Document], Applied]
) -> Applied:
    """Apply ``operation`` to the nodes of the sub-process at ``scope``; the whole new
    document comes back (the input is never changed)."""
    if not scope:
        return operation(dict(document))
    scope_node(document, scope)  # an unknown scope is refused before anything is copied
    doc = copy.deepcopy(dict(document))
    parent = scope_node(doc, scope[:-1])
    inner = find(parent, scope[-1])
    applied = operation(inner)
    nodes = [applied.document if n is inner else n for n in nodes_of(parent)]
    if isinstance(parent, dict):
        parent["nodes"] = nodes
    return replace(applied, document=doc)


def add_step(
    document: Mapping[str, Any], node_id: str, node_type: str, name: str = "", after: str = ""
) -> Applied:
    """The add form's edit: a new sub-process starts with its own start and end, as a new
    draft does, so it can be opened and filled at once."""
    applied = add_node(document, node_id, node_type, name, after)
    if node_type == "subprocess":
        find(applied.document, node_id)["nodes"] = [
            {"id": "start", "type": "start"},
            {"id": "end", "type": "end"},
        ]
    return applied


def steps_of_path(document: Mapping[str, Any], path: str) -> Scope:
    """The chain of node ids a check's path names (``nodes[1] (a).nodes[0] (b).x`` → a, b),
    read against the document (by id, else by position); empty when it names no node."""
    chain: list[str] = []
    holder: Mapping[str, Any] = document
    for match in _STEP.finditer(path):
        nodes = nodes_of(holder)
        ids = [str(n.get("id")) for n in nodes]
        index, named = int(match.group(1)), match.group(2)
        if named in ids:
            position = ids.index(named)
        elif index < len(ids):
            position = index
        else:
            break
        chain.append(ids[position])
        holder = nodes[position]
    return tuple(chain)


def step_label(chain: Scope) -> str:
    """How a person reads where a step is: ``analise \u203a conferir``."""
    return SEPARATOR.join(chain)
