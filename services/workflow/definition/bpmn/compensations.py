"""Compensation ↔ a node's ``compensation`` handler and an end's ``compensate``.

BPMN draws "this step is undone by that handler" as a compensation ``boundaryEvent``
(``compensateEventDefinition``) on the task, joined by an ``association`` to a ``serviceTask``
with ``isForCompensation="true"`` whose ``tramita:handler`` is the handler: the task's
``compensation`` field. Neither the boundary event nor the compensation task becomes a node,
and neither may have sequence flows (BPMN 2.0 §10.7: a compensation activity sits outside the
normal flow). An ``endEvent`` with a ``compensateEventDefinition`` (without ``activityRef``:
everything completed is compensated) is an ``end`` with ``compensate: true``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from lxml import etree  # type: ignore[import-untyped]  # lxml ships no stubs

from services.workflow.definition.messages import N_

from .extensions import read_tramita
from .ids import IdAllocator
from .layout import Edge
from .namespaces import BPMN, TRAMITA, q, split
from .sources import Problems
from .writer import xml_attribute_ok

_HANDLER: Final = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")
_TASK_TYPES: Final = frozenset({"gateway", "event"})
_DEFINITION: Final = "compensateEventDefinition"
_UNASSOCIATED = N_(
    "a compensation boundary event and its compensation task are joined by one association"
)


def is_compensation_end(definitions: list[Any], problems: Problems) -> bool:
    """Whether an end event's definitions make it a compensation end (``activityRef``, which
    would compensate one activity only, is refused)."""
    if [split(d.tag)[1] for d in definitions] != [_DEFINITION]:
        return False
    if definitions[0].get("activityRef") is not None:
        problems.add(
            definitions[0],
            "compensation.activity_ref",
            N_("a compensation end event compensates every completed step: remove activityRef"),
        )
    return True


class Compensations:
    """The import side: compensation boundary events and tasks set aside while the nodes are
    read, then paired through their associations."""

    def __init__(self, problems: Problems) -> None:
        self.problems = problems
        self.boundaries: dict[str, tuple[Any, dict[str, Any]]] = {}  # id → (element, owner)
        self.tasks: dict[str, tuple[Any, str | None]] = {}  # id → (element, handler)

    def take_task(self, element: Any, raw: str) -> bool:
        """Set a compensation task aside (``False``: not one, read it as a node)."""
        if element.get("isForCompensation") != "true":
            return False
        handler = read_tramita(element, self.problems).scalars.get("handler")
        if split(element.tag)[1] != "serviceTask" or not handler:
            self.problems.add(
                element,
                "compensation.handler",
                N_(
                    'a compensation activity (isForCompensation="true") is a bpmn:serviceTask '
                    "whose tramita:handler names the registered handler that undoes the step"
                ),
            )
            handler = None
        self.tasks[raw] = (element, handler)
        return True

    def take_boundary(self, element: Any, raw: str, owner: dict[str, Any]) -> bool:
        """Set a compensation boundary event aside (``False``: not one)."""
        kinds = [split(c.tag)[1] for c in element if split(c.tag)[1].endswith("EventDefinition")]
        if _DEFINITION not in kinds:
            return False
        if kinds != [_DEFINITION]:
            self.problems.add(
                element,
                "unsupported.event",
                N_("a boundary event has exactly one timer or error event definition"),
            )
        self.boundaries[raw] = (element, owner)
        return True

    def attach(self, flows: Iterable[Any], process: Any) -> list[Any]:
        """Pair boundaries and tasks through the process's associations, giving each owner its
        ``compensation``; the flows that remain are the graph's own."""
        remaining = []
        for flow in flows:
            if {flow.get("sourceRef"), flow.get("targetRef")} & {*self.boundaries, *self.tasks}:
                self.problems.add(
                    flow,
                    "compensation.flow",
                    N_(
                        "compensation boundary events and compensation activities have no "
                        "sequence flows: an association joins them"
                    ),
                )
            else:
                remaining.append(flow)
        pairs: dict[str, list[str]] = {}
        for association in process.findall(q(BPMN, "association")):
            ends = (association.get("sourceRef"), association.get("targetRef"))
            for boundary, task in (ends, ends[::-1]):
                if boundary in self.boundaries and task in self.tasks:
                    pairs.setdefault(boundary, []).append(task)
                    pairs.setdefault(task, []).append(boundary)
        for raw, (element, owner) in self.boundaries.items():
            joined = pairs.get(raw, [])
            if len(joined) != 1 or len(pairs[joined[0]]) != 1:
                self.problems.add(element, "compensation.unassociated", _UNASSOCIATED)
            elif "compensation" in owner:
                self.problems.add(
                    element,
                    "compensation.twice",
                    N_("this task already names its compensation (tramita:compensation)"),
                )
            elif self.tasks[joined[0]][1] is not None:
                owner["compensation"] = self.tasks[joined[0]][1]
        for raw, (element, _) in self.tasks.items():
            if raw not in pairs:
                self.problems.add(element, "compensation.unassociated", _UNASSOCIATED)
        return remaining


def exported_handler(node: Mapping[str, Any], kind: str) -> str | None:
    """The node's compensation handler when BPMN can draw it (a task with a dotted name)."""
    handler = node.get("compensation")
    if kind in _TASK_TYPES or not isinstance(handler, str) or not _HANDLER.fullmatch(handler):
        return None
    return handler if xml_attribute_ok(handler) else None


class CompensationWriter:
    """The export side: per compensated task, a boundary event, a compensation service task
    and the association between them (written after the flows, as the XSD orders artifacts)."""

    def __init__(self, ids: IdAllocator) -> None:
        self.ids = ids
        self.drawn: dict[str, tuple[str, str, str, str]] = {}  # node → boundary, task, assoc, h

    def collect(self, node_id: str, handler: str) -> None:
        self.drawn[node_id] = (
            self.ids.take(f"{node_id}_compensation"),
            self.ids.take(f"{node_id}_compensation_handler"),
            self.ids.take(f"{node_id}_compensation_association"),
            handler,
        )

    def boundary(self, process: Any, node_id: str) -> None:
        if node_id not in self.drawn:
            return
        boundary_id = self.drawn[node_id][0]
        element = etree.SubElement(process, q(BPMN, "boundaryEvent"), id=boundary_id)
        element.set("attachedToRef", node_id)
        etree.SubElement(element, q(BPMN, _DEFINITION))

    def tasks(self, process: Any) -> None:
        for _, task_id, _, handler in self.drawn.values():
            element = etree.SubElement(process, q(BPMN, "serviceTask"), id=task_id)
            element.set("isForCompensation", "true")
            element.set(q(TRAMITA, "handler"), handler)

    def associations(self, process: Any) -> None:
        for boundary_id, task_id, association_id, _ in self.drawn.values():
            element = etree.SubElement(process, q(BPMN, "association"), id=association_id)
            element.set("sourceRef", boundary_id)
            element.set("targetRef", task_id)
            element.set("associationDirection", "One")

    def shapes(self) -> tuple[list[tuple[str, str]], list[str], list[Edge]]:
        """(boundary id, task id) pairs, compensation task ids and association edges for DI."""
        drawn = list(self.drawn.items())
        return (
            [(b, node_id) for node_id, (b, _, _, _) in drawn],
            [t for _, (_, t, _, _) in drawn],
            [Edge(a, b, t) for _, (b, t, a, _) in drawn],
        )
