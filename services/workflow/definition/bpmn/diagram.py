"""BPMN DI: one ``BPMNShape`` per flow node and boundary event, one ``BPMNEdge`` per flow.

Kept apart from the semantic export because it is pure presentation: the importer ignores DI
entirely, so nothing here can change what a definition means.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lxml import etree  # type: ignore[import-untyped]  # lxml ships no stubs

from .ids import IdAllocator
from .layout import Edge, Kind, layout
from .namespaces import BPMNDI, DC, DI, q


def add_diagram(
    root: Any,
    process_id: str,
    ids: IdAllocator,
    *,
    nodes: Sequence[tuple[str, Kind]],
    edges: Sequence[Edge],
    boundaries: Sequence[tuple[str, str]],
    exclusive: set[str],
    collapsed: set[str] | frozenset[str] = frozenset(),
) -> None:
    """Append a ``bpmndi:BPMNDiagram`` laid out by :func:`layout.layout` to ``root``."""
    placed = layout(nodes, edges, boundaries)
    diagram = etree.SubElement(root, q(BPMNDI, "BPMNDiagram"), id=ids.take(f"{process_id}_diagram"))
    plane = etree.SubElement(diagram, q(BPMNDI, "BPMNPlane"), id=ids.take(f"{process_id}_plane"))
    plane.set("bpmnElement", process_id)
    for element_id, box in placed.shapes.items():
        shape = etree.SubElement(plane, q(BPMNDI, "BPMNShape"), id=ids.take(f"{element_id}_di"))
        shape.set("bpmnElement", element_id)
        if element_id in exclusive:
            shape.set("isMarkerVisible", "true")
        if element_id in collapsed:
            shape.set("isExpanded", "false")  # its content is on a diagram of its own
        bounds = etree.SubElement(shape, q(DC, "Bounds"))
        for name, value in zip(("x", "y", "width", "height"), box, strict=True):
            bounds.set(name, str(value))
    for edge in edges:
        element = etree.SubElement(plane, q(BPMNDI, "BPMNEdge"), id=ids.take(f"{edge.id}_di"))
        element.set("bpmnElement", edge.id)
        for x, y in placed.waypoints[edge.id]:
            point = etree.SubElement(element, q(DI, "waypoint"))
            point.set("x", str(x))
            point.set("y", str(y))
