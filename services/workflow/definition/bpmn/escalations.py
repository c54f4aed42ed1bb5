"""Escalation to a supervisor queue ↔ a non-interrupting timer whose path ends in escalation.

The definition format says "after N, move this open task to a supervisor queue" as a boundary
timer with ``interrupting: false`` and ``escalate_to``. BPMN draws the same thing as a
non-interrupting timer ``boundaryEvent`` (``cancelActivity="false"``) on the human task whose
one outgoing flow reaches an escalation event: an ``endEvent`` (or an ``intermediateThrowEvent``
with no outgoing flow) carrying an ``escalationEventDefinition``. The queue is that event's
``tramita:queue``, else the ``escalationCode`` of the root ``bpmn:escalation`` its
``escalationRef`` names. The event is not a node of the definition: it only names the queue.

Any other escalation shape (one reached from elsewhere, one that continues, one without a
queue) is refused against its element, one problem each.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from lxml import etree  # type: ignore[import-untyped]  # lxml ships no stubs

from services.workflow.definition.messages import N_

from .extensions import read_tramita
from .flows import Endpoint
from .ids import IdAllocator, sanitise_node_id
from .namespaces import BPMN, q, split
from .sources import Problems
from .writer import xml_attribute_ok

THROWING: Final = frozenset({"endEvent", "intermediateThrowEvent"})
_QUEUE: Final = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")


def is_escalation_event(element: Any) -> bool:
    """An end or intermediate throw event with an escalation definition."""
    return split(element.tag)[1] in THROWING and (
        element.find(q(BPMN, "escalationEventDefinition")) is not None
    )


def read_escalation(element: Any, problems: Problems) -> str | None:
    """The queue an escalation event names, or ``None`` with the problem recorded."""
    kinds = [split(c.tag)[1] for c in element if split(c.tag)[1].endswith("EventDefinition")]
    if kinds != ["escalationEventDefinition"]:
        problems.add(
            element,
            "escalation.shape",
            N_("an escalation event has exactly one escalationEventDefinition"),
        )
        return None
    queue = read_tramita(element, problems).scalars.get("queue")
    if queue is None:
        queue = _code(element)
    if queue is None or not _QUEUE.fullmatch(queue.strip()):
        problems.add(
            element,
            "escalation.queue",
            N_(
                "an escalation event names the supervisor queue: tramita:queue, or the "
                "escalationCode of the bpmn:escalation in escalationRef (a dotted name such as "
                "purchase.directors)"
            ),
        )
        return None
    return queue.strip()


def _code(element: Any) -> str | None:
    ref = element.find(q(BPMN, "escalationEventDefinition")).get("escalationRef")
    root = element.getroottree().getroot()
    for escalation in root.iter(q(BPMN, "escalation")):
        if ref is not None and escalation.get("id") == ref.strip():
            code = escalation.get("escalationCode")
            return str(code) if code is not None else None
    return None


def attach_escalations(
    flows: Iterable[Any],
    events: Mapping[str, tuple[Any, str]],
    endpoints: Mapping[str, Endpoint],
    refused: set[str],
    problems: Problems,
) -> list[Any]:
    """Give each escalation event's queue to the timer whose flow reaches it; the flows that
    remain are the graph's own. ``events``: BPMN id → (element, queue); flows touching a
    ``refused`` element are left to :func:`.flows.wire`, which skips them."""
    remaining: list[Any] = []
    reached: dict[str, int] = {}
    for flow in flows:
        source_ref, target_ref = flow.get("sourceRef"), flow.get("targetRef")
        if source_ref in refused or target_ref in refused:
            reached[target_ref] = reached.get(target_ref, 0)
            remaining.append(flow)
        elif source_ref in events:
            problems.add(
                flow,
                "escalation.outgoing",
                N_("an escalation event to a supervisor queue ends its path: no flow leaves it"),
            )
        elif target_ref in events:
            reached[target_ref] = reached.get(target_ref, 0) + 1
            timer = _timer(endpoints.get(source_ref))
            if timer is None or reached[target_ref] > 1:
                problems.add(
                    flow,
                    "escalation.source",
                    N_(
                        "an escalation event is reached by one flow only, from a "
                        'non-interrupting timer boundary event (cancelActivity="false") of a '
                        "human task"
                    ),
                )
            elif "escalate_to" in timer:
                problems.add(
                    flow,
                    "escalation.twice",
                    N_("this timer already escalates (tramita:escalateTo)"),
                )
            else:
                timer["escalate_to"] = events[target_ref][1]
        else:
            remaining.append(flow)
    for raw, (element, _) in events.items():
        if raw not in reached:  # drawn alone: nothing would ever reach it
            problems.add(
                element,
                "escalation.source",
                N_(
                    "an escalation event is reached by one flow only, from a "
                    'non-interrupting timer boundary event (cancelActivity="false") of a '
                    "human task"
                ),
            )
    return remaining


def _timer(endpoint: Endpoint | None) -> dict[str, Any] | None:
    if endpoint is None or endpoint.node_type != "boundary":
        return None
    timer = endpoint.target
    return timer if timer.get("interrupting") is False else None


def exported_queue(timer: Mapping[str, Any]) -> str | None:
    """The queue a timer escalates to when BPMN can draw it as an escalation event."""
    queue = timer.get("escalate_to")
    if timer.get("interrupting") is not False or "next" in timer:
        return None
    if not isinstance(queue, str) or not _QUEUE.fullmatch(queue) or not xml_attribute_ok(queue):
        return None
    return queue


class EscalationWriter:
    """The export side: one escalation end event per escalating timer, one root
    ``bpmn:escalation`` per queue (its ``escalationCode`` is the queue); a sub-process's
    writer shares ``declared`` with its parent's, so each queue is declared once."""

    def __init__(self, ids: IdAllocator, declared: dict[str, str] | None = None) -> None:
        self.ids = ids
        self.events: list[tuple[str, str]] = []  # (end event id, queue)
        self.declared: dict[str, str] = {} if declared is None else declared  # queue → its id

    def event_for(self, boundary_id: str, queue: str) -> str:
        """Reserve the end event of ``boundary_id``'s escalation; its id is the flow target."""
        event_id = self.ids.take(f"{boundary_id}_escalation")
        if queue not in self.declared:
            self.declared[queue] = self.ids.take(f"escalation_{sanitise_node_id(queue)}")
        self.events.append((event_id, queue))
        return event_id

    def declare(self, root: Any, process: Any) -> None:
        """The root ``bpmn:escalation`` of each queue, before the process."""
        for queue, escalation_id in self.declared.items():
            element = etree.Element(q(BPMN, "escalation"), id=escalation_id)
            element.set("name", queue)
            element.set("escalationCode", queue)
            process.addprevious(element)

    def write(self, process: Any, incoming: Mapping[str, list[str]]) -> None:
        for event_id, queue in self.events:
            element = etree.SubElement(process, q(BPMN, "endEvent"), id=event_id)
            for flow_id in incoming.get(event_id, []):
                etree.SubElement(element, q(BPMN, "incoming")).text = flow_id
            definition = etree.SubElement(element, q(BPMN, "escalationEventDefinition"))
            definition.set("escalationRef", self.declared[queue])
