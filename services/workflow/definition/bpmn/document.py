"""Find the one process in a BPMN document and sort its contents; refuse what is out of scope.

The subset is deliberately small (see docs/bpmn.md): one process, one optional pool around it,
the flow nodes Tramita can run, and the presentational extras modelers add (lanes,
annotations, data objects, diagrams), which are skipped. Anything else in the BPMN namespace is
refused with its element name, id and line, because silently dropping, say, a subprocess or a
message flow would publish a different process from the one that was drawn.
"""

from __future__ import annotations

from typing import Any, Final

from services.workflow.definition.messages import N_

from .namespaces import BPMN, BPMNDI, TRAMITA, XINCLUDE, q, split
from .nodes import ELEMENT_TYPES
from .sources import Origin, Problems

XINCLUDES: Final = (XINCLUDE, "http://www.w3.org/2003/XInclude")
#: Root-level declarations that only matter to elements we refuse anyway, or to tools.
IGNORED_ROOT: Final = frozenset(
    {
        "documentation",
        "extensionElements",
        "message",
        "itemDefinition",
        "category",
        "signal",
        "error",
        "escalation",
        "dataStore",
        "resource",
        "interface",
        "correlationProperty",
    }
)
#: Process children that are presentation or documentation only.
IGNORED_IN_PROCESS: Final = frozenset(
    {
        "documentation",
        "extensionElements",
        "laneSet",
        "textAnnotation",
        "association",
        "group",
        "dataObject",
        "dataObjectReference",
        "dataStoreReference",
        "property",
        "ioSpecification",
        "auditing",
        "monitoring",
    }
)
#: ``correlationKey`` groups message correlation properties; with one pool nothing is
#: exchanged, so it is accepted and has no effect (modelers add it to any collaboration).
_IGNORED_IN_COLLABORATION: Final = frozenset(
    {
        "documentation",
        "extensionElements",
        "textAnnotation",
        "association",
        "group",
        "correlationKey",
    }
)
_CHOREOGRAPHY = N_("choreographies are outside the scope of an internal workflow")
#: Why common elements are refused, so the message tells the modeler what to do instead
#: (msgids: the reader sees them in their language).
REASONS: Final = {
    "scriptTask": N_("scripts run code, and Tramita never runs code from a diagram"),
    "complexGateway": N_("complex gateways are not supported"),
    "adHocSubProcess": N_(
        "ad-hoc subprocesses are planned for a later phase, not part of the v1 subset"
    ),
    "transaction": N_("transactions are not supported"),
    "choreography": _CHOREOGRAPHY,
    "choreographyTask": _CHOREOGRAPHY,
    "callChoreography": _CHOREOGRAPHY,
    "subChoreography": _CHOREOGRAPHY,
    "conversation": N_("conversations need several pools"),
}


class Scan:
    """The process element and its children, sorted by role, in document order."""

    def __init__(self, process: Any, participant: Any | None) -> None:
        self.process = process
        self.participant = participant
        self.nodes: list[Any] = []
        self.boundaries: list[Any] = []
        self.flows: list[Any] = []
        self.refused: set[str] = set()


def _refuse(element: Any, problems: Problems, why: str = "") -> None:
    _, local = split(element.tag)
    why = why or REASONS.get(local, "")
    if not why:
        problems.add(
            element,
            "unsupported.element",
            N_("bpmn:%(element)s is outside the BPMN subset Tramita imports"),
            element=local,
        )
        return
    problems.add(
        element,
        "unsupported.element",
        N_("bpmn:%(element)s is outside the BPMN subset Tramita imports (%(why_msg)s)"),
        element=local,
        why_msg=why,
    )


def _participant(collaboration: Any, problems: Problems) -> Any | None:
    participants = []
    for child in collaboration:
        namespace, local = split(child.tag)
        if namespace != BPMN or local in _IGNORED_IN_COLLABORATION:
            continue
        if local == "participant":
            participants.append(child)
        else:
            _refuse(child, problems, N_("message flows and conversations need several pools"))
    for extra in participants[1:]:
        _refuse(extra, problems, N_("only one pool is supported"))
    return participants[0] if participants else None


def _scan_root(root: Any, problems: Problems) -> tuple[list[Any], Any | None]:
    processes: list[Any] = []
    participant = None
    for child in root:
        namespace, local = split(child.tag)
        if namespace == BPMNDI or (namespace != BPMN and namespace != TRAMITA):
            continue  # diagrams and other tools' metadata carry no semantics for us
        if local == "process" and namespace == BPMN:
            processes.append(child)
        elif local == "collaboration" and namespace == BPMN:
            participant = _participant(child, problems)
        elif local == "import" and namespace == BPMN:
            problems.add(
                child,
                "unsupported.import",
                N_("bpmn:import is refused: a BPMN file is imported alone and nothing is fetched"),
            )
        elif local not in IGNORED_ROOT or namespace == TRAMITA:
            _refuse(child, problems)
    return processes, participant


def scan(root: Any, problems: Problems) -> Scan | None:
    """Sort the document, recording problems; ``None`` when there is no single process."""
    namespace, local = split(root.tag)
    if (namespace, local) != (BPMN, "definitions"):
        problems.add(
            root,
            "not_bpmn",
            N_("the root element must be BPMN 2.0 definitions (namespace %(namespace)s)"),
            namespace=BPMN,
        )
        return None
    for namespace in XINCLUDES:
        for include in root.iter(q(namespace, "include")):
            problems.add(
                Origin(tag="xi:include", line=include.sourceline),
                "unsupported.xinclude",
                N_("xi:include is refused: a BPMN file is imported alone and nothing is included"),
            )
    processes, participant = _scan_root(root, problems)
    if not processes:
        problems.add(root, "no_process", N_("the file has no bpmn:process"))
        return None
    for extra in processes[1:]:
        _refuse(extra, problems, N_("only one process per file"))
    process = processes[0]
    if participant is not None and participant.get("processRef") not in (None, process.get("id")):
        _refuse(participant, problems, N_("its processRef names another process"))
    result = Scan(process, participant)
    _sort(process, result, problems)
    return result


def scan_subprocess(element: Any, problems: Problems) -> Scan:
    """The content of a ``bpmn:subProcess``, sorted like a process's."""
    result = Scan(element, None)
    _sort(element, result, problems)
    return result


def _sort(container: Any, result: Scan, problems: Problems) -> None:
    sub_process = split(container.tag)[1] == "subProcess"
    for child in container:
        namespace, local = split(child.tag)
        if namespace == TRAMITA:
            problems.add(
                child,
                "extension.misplaced",
                N_("tramita:%(element)s must be inside extensionElements"),
                element=local,
            )
        elif (
            namespace != BPMN
            or local in IGNORED_IN_PROCESS
            or (sub_process and local in ("incoming", "outgoing"))
        ):
            continue
        elif local == "subProcess" and child.get("triggeredByEvent") == "true":
            _refuse(child, problems, N_("event sub-processes are not supported"))
            if child.get("id"):
                result.refused.add(str(child.get("id")))
        elif local == "sequenceFlow":
            result.flows.append(child)
        elif local == "boundaryEvent":
            result.boundaries.append(child)
        elif local in ELEMENT_TYPES:
            result.nodes.append(child)
        else:
            _refuse(child, problems)
            if child.get("id"):
                result.refused.add(str(child.get("id")))
