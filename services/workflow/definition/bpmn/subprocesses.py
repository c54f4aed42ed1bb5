"""Embedded sub-processes in BPMN: a ``subprocess`` node is a ``bpmn:subProcess`` whose flow
elements are its ``nodes``.

BPMN ids are unique in the whole document while node ids are unique only within their
sub-process, so on export an inner node whose id is already taken gets another element id
(``<sub-process id>_<node id>``) and keeps its own in ``tramita:nodeId``, which the importer
prefers. Its content is drawn on a diagram of its own (the sub-process collapsed in its
parent's, ``isExpanded="false"``), which is how modelers show a drill-down sub-process.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .ids import IdAllocator


def _target(value: Any, renamed: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return renamed.get(value, value)
    if isinstance(value, list):
        return [renamed.get(v, v) if isinstance(v, str) else v for v in value]
    return value


def _rename(node: Mapping[str, Any], renamed: Mapping[str, str]) -> dict[str, Any]:
    out = dict(node)
    out["id"] = renamed[str(node["id"])]
    for field in ("next", "default"):
        if field in out:
            out[field] = _target(out[field], renamed)
    if isinstance(out.get("outcomes"), Mapping):
        out["outcomes"] = {k: _target(v, renamed) for k, v in out["outcomes"].items()}
    for field in ("branches", "timers", "errors"):
        if isinstance(out.get(field), list):
            out[field] = [
                {**item, "next": _target(item.get("next"), renamed)}
                if isinstance(item, Mapping) and "next" in item
                else item
                for item in out[field]
            ]
    return out


def element_nodes(
    owner: str, nodes: list[Mapping[str, Any]], ids: IdAllocator
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The sub-process ``owner``'s nodes with element ids unique in the document, and which
    element ids differ from their node's id (element id → node id)."""
    renamed: dict[str, str] = {}
    for node in nodes:
        node_id = str(node["id"])
        renamed[node_id] = node_id if node_id not in ids else ids.take(f"{owner}_{node_id}")
        ids.reserve(renamed[node_id])
    original = {element: node for node, element in renamed.items() if element != node}
    return [_rename(n, renamed) for n in nodes], original
