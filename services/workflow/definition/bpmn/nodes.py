"""One BPMN flow node → one definition node (without its outgoing references).

The element decides the node type; ``tramita:type`` may refine it where one BPMN element stands
for several Tramita types (a ``userTask`` is a ``user_task`` or an ``approval``). Fields come
from the tramita vocabulary and Camunda/Zeebe equivalents (see ``extensions``). Outgoing
references are wired afterwards from the sequence flows (see ``flows``), because they depend on
the whole graph, not on the element.
"""

from __future__ import annotations

import re
from typing import Any, Final

from services.workflow.definition.messages import N_

from .compensations import is_compensation_end
from .expressions import first_child, read_time_date
from .extensions import LISTS, SCALARS, Tramita, read_tramita
from .multi_instance import MARKER, read_marker
from .namespaces import BPMN, TRAMITA, q, split
from .sources import Problems

#: BPMN element → (default type, other types ``tramita:type`` may choose). ``None``: any type.
ELEMENT_TYPES: Final[dict[str, tuple[str | None, frozenset[str] | None]]] = {
    "startEvent": ("start", frozenset()),
    "endEvent": ("end", frozenset()),
    "userTask": ("user_task", frozenset({"approval"})),
    "manualTask": ("manual_task", frozenset()),
    "serviceTask": ("service_task", frozenset({"integration"})),
    "sendTask": ("notification", frozenset()),
    "receiveTask": ("user_task", frozenset()),
    "businessRuleTask": (None, frozenset({"validation", "decision_table"})),
    "task": (None, None),
    "exclusiveGateway": ("exclusive", frozenset()),
    "parallelGateway": ("parallel", frozenset()),
    "inclusiveGateway": ("inclusive", frozenset()),
    "eventBasedGateway": ("event_gateway", frozenset()),
    "callActivity": ("call", frozenset()),
    "subProcess": ("subprocess", frozenset()),
    "intermediateCatchEvent": (None, frozenset()),
    "intermediateThrowEvent": (None, frozenset()),
}

#: Children of a flow node that carry no runtime meaning for us (documentation, data wiring,
#: BPMN resource roles); they are skipped, not refused.
IGNORED_CHILDREN: Final = frozenset(
    {
        "documentation",
        "extensionElements",
        "incoming",
        "outgoing",
        "dataInputAssociation",
        "dataOutputAssociation",
        "ioSpecification",
        "property",
        "potentialOwner",
        "humanPerformer",
        "performer",
        "resourceRole",
        "rendering",
    }
)
EVENT_DEFINITIONS: Final = frozenset(
    {
        "timerEventDefinition",
        "messageEventDefinition",
        "signalEventDefinition",
        "errorEventDefinition",
        "escalationEventDefinition",
        "compensateEventDefinition",
        "conditionalEventDefinition",
        "linkEventDefinition",
        "cancelEventDefinition",
        "terminateEventDefinition",
        "eventDefinitionRef",
    }
)


def event_definitions(element: Any, problems: Problems) -> list[Any] | None:
    """The element's event definitions, or ``None`` if a child must be refused."""
    found: list[Any] = []
    ok = True
    for child in element:
        namespace, local = split(child.tag)
        if namespace == TRAMITA:
            problems.add(
                child,
                "extension.misplaced",
                N_("tramita:%(element)s must be inside extensionElements"),
                element=local,
            )
            ok = False
        elif namespace != BPMN or local in IGNORED_CHILDREN:
            continue
        elif local == MARKER and split(element.tag)[1] == "userTask":
            continue  # read by map_node (multi_instance.read_marker)
        elif split(element.tag)[1] == "subProcess":
            continue  # its content, sorted (and refused) like a process's by the importer
        elif local in EVENT_DEFINITIONS:
            found.append(child)
        else:
            problems.add(
                child,
                "unsupported.element",
                N_(
                    "bpmn:%(element)s is not supported (loops, multi-instance and scripts change "
                    "what runs; Tramita refuses them rather than ignore them)"
                ),
                element=local,
            )
            ok = False
    if element.get("isForCompensation") == "true":
        problems.add(
            element, "unsupported.compensation", N_("compensation activities are not supported")
        )
        ok = False
    if element.get("instantiate") == "true" or element.get("eventGatewayType") == "Parallel":
        problems.add(
            element,
            "unsupported.event_gateway",
            N_(
                "an event-based gateway here waits for the first of its events on a running "
                "case; instantiating or parallel ones are not supported"
            ),
        )
        ok = False
    return found if ok else None


#: A literal ISO 8601 duration in another engine's expression language: Zeebe's FEEL
#: (``=duration("P2D")``, ``="P2D"``), JUEL (``${'P2D'}``) or SpiffWorkflow's Python (``"P2D"``).
_WRAPPED_DURATION: Final = re.compile(
    r"""^(?:=\s*|\$\{\s*)?(?:duration\(\s*)?(["'])?(P[0-9YMWDTHS.,]+)\1?\s*\)?\s*\}?$"""
)


def _duration(element: Any, text: str, problems: Problems) -> str:
    """``text``, or the duration literal inside a vendor expression (noted, not silent)."""
    match = _WRAPPED_DURATION.fullmatch(text)
    if match is None or match.group(2) == text:
        return text
    problems.note(
        element,
        "note.duration_unwrapped",
        N_('the timer duration "%(original)s" was read as %(duration)s'),
        original=text,
        duration=match.group(2),
    )
    return match.group(2)


def read_timer(definition: Any, problems: Problems) -> dict[str, Any] | None:
    """Duration, business days or until from a ``timerEventDefinition``: at most one of them.

    None is allowed here because a ``tramita:property`` may supply the timing (the exporter does
    that for values XML cannot carry verbatim); :func:`check_timing` runs after properties.
    """
    fields: dict[str, Any] = {}
    duration = first_child(definition, BPMN, "timeDuration")
    if duration is not None:
        fields["duration"] = _duration(duration, "".join(duration.itertext()).strip(), problems)
    date = first_child(definition, BPMN, "timeDate")
    if date is not None:
        until = read_time_date(date, problems)
        if until is None:
            return None
        fields["until"] = until
    if first_child(definition, BPMN, "timeCycle") is not None:
        problems.add(
            definition,
            "unsupported.time_cycle",
            N_("repeating timers (timeCycle) are not supported"),
        )
        return None
    days = definition.get(q(TRAMITA, "businessDays"))
    if days is not None:
        if re.fullmatch(r"[0-9]+", days.strip()) is None:
            problems.add(
                definition,
                "timer.business_days",
                N_("tramita:businessDays must be a whole number"),
            )
            return None
        fields["business_days"] = int(days)
    if len(fields) > 1:
        problems.add(
            definition,
            "timer.ambiguous",
            N_("a timer needs exactly one of timeDuration, timeDate or tramita:businessDays"),
        )
        return None
    return fields


def _event_type(local: str, definitions: list[Any], element: Any, problems: Problems) -> str | None:
    kinds = [split(d.tag)[1] for d in definitions]
    if local in ("startEvent", "endEvent"):
        if not kinds:
            return "start" if local == "startEvent" else "end"
        if local == "endEvent" and is_compensation_end(definitions, problems):
            return "end"
        problems.add(
            element,
            "unsupported.event",
            N_("bpmn:%(element)s with %(kinds)s is not supported; only plain start/end events"),
            element=local,
            kinds=", ".join(kinds),
        )
        return None
    wanted = {
        ("intermediateCatchEvent", "timerEventDefinition"): "timer",
        ("intermediateCatchEvent", "messageEventDefinition"): "user_task",
        ("intermediateThrowEvent", "messageEventDefinition"): "notification",
    }
    if len(kinds) == 1 and (local, kinds[0]) in wanted:
        return wanted[(local, kinds[0])]
    what = ", ".join(kinds) or N_("no event definition")
    problems.add(
        element,
        "unsupported.event",
        N_("bpmn:%(element)s with %(kinds_msg)s is not supported"),
        element=local,
        kinds_msg=what,
    )
    return None


def _node_type(local: str, element: Any, tramita: Tramita, problems: Problems) -> str | None:
    default, others = ELEMENT_TYPES[local]
    wanted = tramita.scalars.get("type")
    if wanted is None:
        if default is None and local == "businessRuleTask" and tramita.rules is not None:
            return "validation"
        if default is None:
            problems.add(
                element,
                "unsupported.untyped",
                N_("bpmn:%(element)s needs tramita:type (DMN and untyped tasks are not supported)"),
                element=local,
            )
        return default
    if wanted == default or others is None or wanted in others:
        return wanted
    problems.add(
        element,
        "extension.wrong_type",
        N_('tramita:type="%(type)s" cannot be drawn as bpmn:%(element)s'),
        type=str(wanted),
        element=local,
    )
    return None


TIMING: Final = ("duration", "until", "business_days", "deadline")


def check_timing(element: Any, timer: dict[str, Any], problems: Problems) -> bool:
    """A timer with no timing at all cannot be imported; several are left to validation."""
    if any(key in timer for key in TIMING):
        return True
    problems.add(
        element,
        "timer.missing",
        N_("the timer needs a timeDuration, a timeDate or tramita:businessDays"),
    )
    return False


def apply_fields(target: dict[str, Any], tramita: Tramita) -> None:
    """Copy our vocabulary onto a node, timer or definition dict; properties go last and win."""
    for field, attribute in SCALARS.items():
        if attribute in tramita.scalars:
            target[field] = tramita.scalars[attribute]
    for field in LISTS:
        if field in tramita.lists:
            target[field] = list(tramita.lists[field])
    if "publicLabel" in tramita.scalars:
        target["public"] = {"label": tramita.scalars["publicLabel"]}
    if tramita.rules is not None:
        target["rules"] = tramita.rules
    target.update(tramita.properties)


def map_node(element: Any, node_id: str, problems: Problems) -> dict[str, Any] | None:
    """The node for ``element`` without outgoing references; ``None`` if it was refused."""
    _, local = split(element.tag)
    definitions = event_definitions(element, problems)
    tramita = read_tramita(element, problems)
    if definitions is None:
        return None
    if local.endswith("Event"):
        node_type = _event_type(local, definitions, element, problems)
        wanted = tramita.scalars.get("type")
        if node_type is not None and wanted is not None and wanted != node_type:
            problems.add(
                element,
                "extension.wrong_type",
                N_('tramita:type="%(type)s" cannot be bpmn:%(element)s'),
                type=str(wanted),
                element=local,
            )
            return None
    else:
        node_type = _node_type(local, element, tramita, problems)
    if node_type is None:
        return None
    node: dict[str, Any] = {"id": node_id, "type": node_type}
    name = element.get("name")
    if name is not None:
        node["name"] = str(name)
    if node_type == "timer":
        timer = read_timer(definitions[0], problems)
        if timer is None:
            return None
        node.update(timer)
    if node_type == "end" and definitions:  # a compensation end (the only end with one)
        node["compensate"] = True
    if node_type == "call" and element.get("calledElement"):
        node["definition"] = str(element.get("calledElement"))
    apply_fields(node, tramita)
    if node_type == "timer" and not check_timing(element, node, problems):
        return None
    if not read_marker(element, node, problems):
        return None
    return node
