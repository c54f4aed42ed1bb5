"""A definition dict → BPMN 2.0 XML with diagram interchange, for documentation and modelers.

The export is the inverse of the importer on everything the definition format holds:
``import_bpmn(export_bpmn(d)) == normalise(d)`` (see ``roundtrip``). Node ids become element ids
verbatim, references become sequence flows, fields without a BPMN spelling go to the
``tramita`` namespace (see ``writer``), and an automatic layout (see ``layout``) adds shapes and
edges so the file opens drawn. The output validates against the official BPMN 2.0 XSDs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from lxml import etree  # type: ignore[import-untyped]  # lxml ships no stubs

from contracts.errors import DefinitionInvalid
from services.workflow.definition.messages import N_

from .checks import check_exportable
from .compensations import CompensationWriter, exported_handler
from .diagram import add_diagram
from .error_events import exportable_routes
from .escalations import EscalationWriter, exported_queue
from .expressions import strip_wrappers
from .ids import IdAllocator, is_ncname, sanitise_node_id
from .layout import Edge, Kind
from .multi_instance import write_marker
from .namespaces import BPMN, CEL_LANGUAGE, EXPORT_NSMAP, TRAMITA, XSI, q
from .nodes import ELEMENT_TYPES
from .subprocesses import element_nodes
from .writer import FieldWriter, xml_attribute_ok, xml_text_ok

EXPORT_ELEMENTS: Final = {
    "start": "startEvent",
    "end": "endEvent",
    "approval": "userTask",
    "user_task": "userTask",
    "manual_task": "manualTask",
    "service_task": "serviceTask",
    "integration": "serviceTask",
    "notification": "sendTask",
    "validation": "businessRuleTask",
    "decision_table": "businessRuleTask",
    "timer": "intermediateCatchEvent",
    "exclusive": "exclusiveGateway",
    "parallel": "parallelGateway",
    "inclusive": "inclusiveGateway",
    "event_gateway": "eventBasedGateway",
    "call": "callActivity",
    "subprocess": "subProcess",
}
_STRUCTURAL: Final = frozenset(
    {"id", "type", "name", "next", "outcomes", "branches", "default", "timers"}
)
_FORMAL = "bpmn:tFormalExpression"


class _Flow:
    def __init__(self, flow_id: str, source: str, target: str) -> None:
        self.id, self.source, self.target = flow_id, source, target
        self.outcome: str | None = None
        self.branch: Mapping[str, Any] | None = None
        self.is_default = False


def kind_of(node_type: object) -> Kind:
    if node_type in ("start", "end", "timer"):
        return "event"
    gateways = ("exclusive", "parallel", "inclusive", "event_gateway")
    return "gateway" if node_type in gateways else "task"


def _expression(parent: Any, local: str, text: str, language: str | None = None) -> Any:
    child = etree.SubElement(parent, q(BPMN, local))
    child.set(q(XSI, "type"), _FORMAL)
    if language is not None:
        child.set("language", language)
    child.text = text
    return child


def _until_ok(value: object) -> bool:
    return xml_text_ok(value) and bool(value) and strip_wrappers(str(value)) == value


def _timer_definition(parent: Any, data: Mapping[str, Any]) -> str | None:
    """Write the first timing field that survives the trip; the others become properties."""
    definition = etree.SubElement(parent, q(BPMN, "timerEventDefinition"))
    duration, until, days = data.get("duration"), data.get("until"), data.get("business_days")
    if "duration" in data and xml_text_ok(duration) and duration:
        _expression(definition, "timeDuration", str(duration))
        return "duration"
    if "until" in data and _until_ok(until):
        _expression(definition, "timeDate", str(until), CEL_LANGUAGE)
        return "until"
    if isinstance(days, int) and not isinstance(days, bool) and days >= 0:
        definition.set(q(TRAMITA, "businessDays"), str(days))
        return "business_days"
    return None


class _Exporter:
    """One scope: the process, or (``node_ids``: element id → node id where they differ) the
    content of a sub-process, sharing the document's ids and its error and escalation
    declarations (one root element per code or queue, whichever scope uses it)."""

    def __init__(
        self,
        definition: Mapping[str, Any],
        ids: IdAllocator | None = None,
        error_ids: dict[str, str] | None = None,
        node_ids: Mapping[str, str] | None = None,
        escalation_ids: dict[str, str] | None = None,
    ) -> None:
        self.definition = definition
        self.nodes: list[Mapping[str, Any]] = list(definition["nodes"])
        self.ids = ids or IdAllocator({str(n["id"]) for n in self.nodes})
        self.node_ids = node_ids or {}
        self.inner: list[tuple[str, _Exporter]] = []
        self.flows: list[_Flow] = []
        self.boundaries: list[tuple[str, str, Mapping[str, Any]]] = []
        self.error_boundaries: list[tuple[str, str, Mapping[str, Any]]] = []
        self.error_ids: dict[str, str] = {} if error_ids is None else error_ids
        self.incoming: dict[str, list[str]] = {}
        self.outgoing: dict[str, list[str]] = {}
        self.awaited: set[str] = set()
        self.escalations = EscalationWriter(self.ids, escalation_ids)
        self.compensations = CompensationWriter(self.ids)

    def _flow(self, source: str, target: str) -> _Flow:
        flow = _Flow(self.ids.take(f"{source}_to_{target}"), source, target)
        self.flows.append(flow)
        self.outgoing.setdefault(source, []).append(flow.id)
        self.incoming.setdefault(target, []).append(flow.id)
        return flow

    def collect(self) -> None:
        for node in self.nodes:
            node_id = str(node["id"])
            nexts = node.get("next")
            handler = exported_handler(node, kind_of(node.get("type")))
            if handler is not None:
                self.compensations.collect(node_id, handler)
            if node.get("type") == "event_gateway" and isinstance(nexts, list):
                self.awaited.update(str(t) for t in nexts)
            for target in nexts if isinstance(nexts, list) else [nexts] if nexts else []:
                self._flow(node_id, target)
            for outcome, target in (node.get("outcomes") or {}).items():
                self._flow(node_id, target).outcome = outcome
            for branch in node.get("branches") or []:
                self._flow(node_id, branch["next"]).branch = branch
            if node.get("default"):
                self._flow(node_id, node["default"]).is_default = True
            for route in exportable_routes(node) or []:
                self._error_route(node_id, route)
            for timer in node.get("timers") or []:
                raw = timer.get("id")
                suffix = sanitise_node_id(raw) if isinstance(raw, str) else "timer"
                boundary_id = self.ids.take(f"{node_id}_{suffix}")
                self.boundaries.append((boundary_id, node_id, timer))
                queue = exported_queue(timer)
                if queue is not None:
                    self._flow(boundary_id, self.escalations.event_for(boundary_id, queue))
                elif timer.get("next"):
                    self._flow(boundary_id, timer["next"])

    def _error_route(self, node_id: str, route: Mapping[str, Any]) -> None:
        code = str(route["code"])
        if code != "*" and code not in self.error_ids:
            self.error_ids[code] = self.ids.take(f"error_{code}")
        suffix = "any" if code == "*" else code
        boundary_id = self.ids.take(f"{node_id}_error_{suffix}")
        self.error_boundaries.append((boundary_id, node_id, route))
        self._flow(boundary_id, str(route["next"]))

    def declare_errors(self, root: Any, process: Any) -> None:
        """One root ``bpmn:error`` per routed code, before the process."""
        for code, error_id in self.error_ids.items():
            element = etree.Element(q(BPMN, "error"), id=error_id, name=code, errorCode=code)
            process.addprevious(element)

    def error_boundary(
        self, process: Any, boundary_id: str, task_id: str, route: Mapping[str, Any]
    ) -> None:
        element = etree.SubElement(process, q(BPMN, "boundaryEvent"), id=boundary_id)
        element.set("attachedToRef", task_id)
        writer = FieldWriter(element)
        self._refs(element, boundary_id)
        definition = etree.SubElement(element, q(BPMN, "errorEventDefinition"))
        if route["code"] != "*":
            definition.set("errorRef", self.error_ids[str(route["code"])])
        writer.fields(route, {"code", "next"})
        writer.finish()

    def _refs(self, element: Any, element_id: str) -> None:
        for local, table in (("incoming", self.incoming), ("outgoing", self.outgoing)):
            for flow_id in table.get(element_id, []):
                etree.SubElement(element, q(BPMN, local)).text = flow_id

    def node(self, process: Any, node: Mapping[str, Any]) -> None:
        node_id, node_type = str(node["id"]), node.get("type")
        local = EXPORT_ELEMENTS.get(str(node_type), "task")
        if node_type == "user_task" and node_id in self.awaited:
            local = "receiveTask"  # what an event-based gateway may wait for (BPMN §10.6.6)
        element = etree.SubElement(process, q(BPMN, local), id=node_id)
        writer = FieldWriter(element)
        if "name" in node:
            if xml_attribute_ok(node["name"]):
                element.set("name", node["name"])
            else:
                writer.property("name", node["name"])
        if ELEMENT_TYPES[local][0] != node_type:
            if xml_attribute_ok(node_type):
                writer.attribute("type", str(node_type))
            else:
                writer.property("type", node_type)
        if node_id in self.node_ids:
            writer.attribute("nodeId", self.node_ids[node_id])
        self._refs(element, node_id)
        if local == "userTask" and isinstance(node.get("multi"), Mapping):
            write_marker(element, node["multi"])
        skip = set(_STRUCTURAL)
        if node_id in self.compensations.drawn:
            skip.add("compensation")  # drawn as a boundary event and a compensation task
        if node_type == "end" and node.get("compensate") is True:
            etree.SubElement(element, q(BPMN, "compensateEventDefinition"))
            skip.add("compensate")
        if node_type == "subprocess" and isinstance(node.get("nodes"), list):
            skip.add("nodes")
            self._subprocess(element, node_id, node["nodes"])
        if exportable_routes(node) is not None:
            skip.add("errors")
        called = node.get("definition")
        if node_type == "call" and isinstance(called, str) and xml_attribute_ok(called):
            element.set("calledElement", called)  # the standard attribute other modelers show
            skip.add("definition")
        if node_type == "timer":
            chosen = _timer_definition(element, node)
            skip.update({chosen} if chosen else set())
        if node_type in ("exclusive", "inclusive"):
            default = next((f.id for f in self.flows if f.source == node_id and f.is_default), None)
            if default is not None:
                element.set("default", default)
        writer.fields(node, skip)
        writer.finish()

    def _subprocess(self, element: Any, node_id: str, nodes: list[Mapping[str, Any]]) -> None:
        inner_nodes, original = element_nodes(node_id, nodes, self.ids)
        declared = self.escalations.declared
        inner = _Exporter({"nodes": inner_nodes}, self.ids, self.error_ids, original, declared)
        inner.collect()
        inner.contents(element)
        self.inner.append((node_id, inner))

    def boundary(
        self, process: Any, boundary_id: str, task_id: str, timer: Mapping[str, Any]
    ) -> None:
        element = etree.SubElement(process, q(BPMN, "boundaryEvent"), id=boundary_id)
        element.set("attachedToRef", task_id)
        writer = FieldWriter(element)
        skip = {"id", "next", "interrupting"}
        if exported_queue(timer) is not None:
            skip.add("escalate_to")  # drawn as the escalation event its flow reaches
        if xml_attribute_ok(timer.get("id")):
            writer.attribute("timerId", str(timer["id"]))
        elif "id" in timer:
            writer.property("id", timer["id"])
        interrupting = timer.get("interrupting")
        if isinstance(interrupting, bool):
            element.set("cancelActivity", "true" if interrupting else "false")
        elif "interrupting" in timer:
            writer.property("interrupting", interrupting)
        self._refs(element, boundary_id)
        chosen = _timer_definition(element, timer)
        writer.fields(timer, skip | ({chosen} if chosen else set()))
        writer.finish()

    def sequence_flow(self, process: Any, flow: _Flow) -> None:
        element = etree.SubElement(process, q(BPMN, "sequenceFlow"), id=flow.id)
        element.set("sourceRef", flow.source)
        element.set("targetRef", flow.target)
        writer = FieldWriter(element)
        if flow.outcome is not None:
            element.set("name", flow.outcome)
            writer.attribute("outcome", flow.outcome)
        if flow.branch is not None:
            when = flow.branch.get("when")
            readable = xml_text_ok(when) and bool(when) and strip_wrappers(str(when)) == when
            _expression(
                element, "conditionExpression", str(when) if readable else "true", CEL_LANGUAGE
            )
            writer.fields(flow.branch, {"next", "when"} if readable else {"next"})
        writer.finish()

    def process(self, root: Any) -> Any:
        definition = self.definition
        key = definition.get("key")
        process = etree.SubElement(root, q(BPMN, "process"))
        process.set("id", self.ids.take(key if is_ncname(key) else "process"))
        process.set("isExecutable", "true")
        writer = FieldWriter(process)
        skip = {"nodes", "name", "description", "format"}
        if "name" in definition:
            if xml_attribute_ok(definition["name"]):
                process.set("name", definition["name"])
            else:
                skip.discard("name")
        description = definition.get("description")
        if xml_text_ok(description) and description:
            etree.SubElement(process, q(BPMN, "documentation")).text = description
        elif "description" in definition:
            skip.discard("description")
        if definition.get("format", 1) != 1:
            skip.discard("format")
        writer.fields(definition, skip)
        writer.finish()
        self.contents(process)
        return process

    def contents(self, process: Any) -> None:
        """The scope's flow nodes, boundary events and sequence flows."""
        for node in self.nodes:
            self.node(process, node)
            for boundary_id, task_id, timer in self.boundaries:
                if task_id == node["id"]:
                    self.boundary(process, boundary_id, task_id, timer)
            for boundary_id, task_id, route in self.error_boundaries:
                if task_id == node["id"]:
                    self.error_boundary(process, boundary_id, task_id, route)
            self.compensations.boundary(process, str(node["id"]))
        self.escalations.write(process, self.incoming)
        self.compensations.tasks(process)
        for flow in self.flows:
            self.sequence_flow(process, flow)
        self.compensations.associations(process)

    def diagram(self, root: Any, plane_of: str) -> None:
        """This scope's diagram, then one per sub-process (collapsed in its parent's)."""
        compensated, handlers, associations = self.compensations.shapes()
        add_diagram(
            root,
            plane_of,
            self.ids,
            nodes=[
                *((str(n["id"]), kind_of(n.get("type"))) for n in self.nodes),
                *((event_id, "event") for event_id, _ in self.escalations.events),
                *((task_id, "task") for task_id in handlers),
            ],
            edges=[*(Edge(f.id, f.source, f.target) for f in self.flows), *associations],
            boundaries=[
                *((b, t) for b, t, _ in [*self.boundaries, *self.error_boundaries]),
                *compensated,
            ],
            exclusive={str(n["id"]) for n in self.nodes if n.get("type") == "exclusive"},
            collapsed={node_id for node_id, _ in self.inner},
        )
        for node_id, inner in self.inner:
            inner.diagram(root, node_id)


def export_bpmn(definition: Mapping[str, Any]) -> bytes:
    """BPMN 2.0 XML (UTF-8, with DI) for a definition dict; refuses dangling references.

    Raises ``DefinitionInvalid`` (with JSON paths) when the definition is not shaped enough to
    draw: nodes that are not objects, ids that are not XML names, duplicate ids, references to
    nodes that do not exist. Everything else is exported as it is, valid or not.
    """
    errors = check_exportable(definition)
    if errors:
        raise DefinitionInvalid(N_("The definition cannot be exported to BPMN."), errors=errors)
    exporter = _Exporter(definition)
    exporter.collect()
    root = etree.Element(q(BPMN, "definitions"), nsmap=EXPORT_NSMAP)
    root.set("id", exporter.ids.take("definitions"))
    root.set("targetNamespace", "https://tramita.dev/definitions")
    root.set("exporter", "Tramita")
    root.set("exporterVersion", "1")
    process = exporter.process(root)
    exporter.declare_errors(root, process)
    exporter.escalations.declare(root, process)
    exporter.diagram(root, process.get("id"))
    body: bytes = etree.tostring(root, xml_declaration=False, encoding="UTF-8", pretty_print=True)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + body
