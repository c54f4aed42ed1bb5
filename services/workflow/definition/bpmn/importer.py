"""BPMN 2.0 (the subset in docs/bpmn.md) → a definition dict in the canonical JSON format.

The importer works on plain dicts, not on the definition model, so that it stays an adapter:
it produces exactly what a person could have written by hand, and publishing runs the same
parse and semantic checks on it as on any JSON file. What only the BPMN view can check (one
process, flows that point somewhere, refused elements) is checked here and reported against
BPMN ids and lines; :func:`import_and_validate` runs the caller's semantic validation and maps
its node paths back onto the BPMN elements too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import msgspec

from contracts.errors import DefinitionInvalid, FieldError, ValidationFailed
from services.workflow.definition.gaps import (
    GAPS,
    HANDLED,
    HUMAN,
    WITH_FORM,
    Suggestion,
    gaps_of,
)
from services.workflow.definition.messages import N_, NOT_VALID

from .compensations import Compensations
from .document import Scan, scan, scan_subprocess
from .error_events import boundary_error, declared_errors
from .escalations import attach_escalations, is_escalation_event, read_escalation
from .expressions import first_child
from .extensions import read_tramita
from .flows import Endpoint, collapse_merges, wire
from .ids import NODE_ID_MAX, NODE_ID_RE, IdAllocator, sanitise_key, sanitise_node_id
from .namespaces import BPMN, TRAMITA, q
from .nodes import apply_fields, check_timing, event_definitions, map_node, read_timer
from .safe_xml import DEFAULT_LIMITS, XmlLimits, parse_xml
from .sources import Problems, SourceMap, origin_of, remap_errors
from .vendor import read_vendor, suggested_value


class Imported(msgspec.Struct, frozen=True, kw_only=True):
    """An imported definition and where each of its parts came from in the BPMN file.

    ``suggestions`` are values other modelers' extensions meant for a field (never applied:
    :func:`services.workflow.definition.gaps.accept` does that when the designer confirms);
    ``notes`` are extensions read and ignored, each against its element.
    """

    definition: dict[str, Any]
    sources: SourceMap
    suggestions: list[Suggestion] = msgspec.field(default_factory=list)
    notes: list[FieldError] = msgspec.field(default_factory=list)


#: Which node types a suggested field belongs to.
_FIELD_TYPES: Final = {"queue": HUMAN, "form": WITH_FORM, "handler": HANDLED}


def _lanes(process: Any) -> dict[str, str]:
    """BPMN node id → name of the innermost lane holding it (lanes often name a role)."""
    found: dict[str, str] = {}
    for lane in process.iter(q(BPMN, "lane")):
        name = str(lane.get("name") or "").strip()
        for ref in lane.iter(q(BPMN, "flowNodeRef")):
            if name and (ref.text or "").strip():
                found[(ref.text or "").strip()] = name
    return found


def _suggest(
    element: Any, node: dict[str, Any], lane: str | None, problems: Problems
) -> list[Suggestion]:
    """Suggestions for the node's empty fields from vendor extensions, or from its lane."""
    result = []
    hints = read_vendor(element, problems)
    if lane is not None and not any(field == "queue" for field, _, _ in hints):
        hints.append(("queue", "bpmn:lane name", lane))
    for field, source, original in hints:
        if node["type"] not in _FIELD_TYPES[field]:
            if source != "bpmn:lane name":
                problems.note(
                    element,
                    "note.ignored_extension",
                    N_("%(name)s has no meaning in Tramita and was ignored"),
                    name=source,
                )
        elif field not in node:
            value = suggested_value(field, original)
            result.append(
                Suggestion(
                    node=node["id"], field=field, source=source, original=original, value=value
                )
            )
    return result


def _allocate_ids(elements: Sequence[Any]) -> dict[str, str]:
    """BPMN id → node id. Ids already valid are kept first, so they never get a suffix; an
    inner node of a sub-process exported under another element id names its own in
    ``tramita:nodeId``."""
    allocator = IdAllocator(limit=NODE_ID_MAX)
    result: dict[str, str] = {}
    for element in elements:
        own = element.get(q(TRAMITA, "nodeId"))
        if own is not None and NODE_ID_RE.fullmatch(own) and own not in allocator:
            result[str(element.get("id") or "")] = allocator.take(own)
    for element in elements:
        raw = str(element.get("id") or "")
        if raw in result:
            continue
        if NODE_ID_RE.fullmatch(raw) and len(raw) <= NODE_ID_MAX and raw not in allocator:
            result[raw] = allocator.take(raw)
    for element in elements:
        raw = str(element.get("id") or "")
        if raw not in result:
            result[raw] = allocator.take(sanitise_node_id(raw))
    return result


def _header(found: Scan, problems: Problems) -> dict[str, Any]:
    process = found.process
    tramita = read_tramita(process, problems)
    key = tramita.scalars.get("key") or sanitise_key(str(process.get("id") or "process"))
    definition: dict[str, Any] = {"format": 1, "key": key}
    name = process.get("name")
    if name is None and found.participant is not None:
        name = found.participant.get("name")
    definition["name"] = str(name) if name is not None else key
    documentation = first_child(process, BPMN, "documentation")
    if documentation is not None and "".join(documentation.itertext()).strip():
        definition["description"] = "".join(documentation.itertext()).strip()
    apply_fields(definition, tramita)
    return definition


def _boundary_timer(
    element: Any, attached: dict[str, Any], taken: set[str], problems: Problems
) -> dict[str, Any] | None:
    definitions = event_definitions(element, problems)
    if definitions is None:
        return None
    tramita = read_tramita(element, problems)
    kinds = [d.tag.rpartition("}")[2] for d in definitions]
    if kinds != ["timerEventDefinition"]:
        problems.add(
            element,
            "unsupported.event",
            N_(
                "bpmn:boundaryEvent with %(kinds_msg)s is not supported; only timer and error "
                "boundary events"
            ),
            # A ``_msg`` parameter is translated: element names pass through unchanged.
            kinds_msg=", ".join(kinds) or N_("no event definition"),
        )
        return None
    fields = read_timer(definitions[0], problems)
    if fields is None:
        return None
    wanted = tramita.scalars.get("timerId") or sanitise_node_id(str(element.get("id") or "timer"))
    timer_id = IdAllocator(taken).take(wanted)
    taken.add(timer_id)
    timer: dict[str, Any] = {"id": timer_id, **fields}
    timer["interrupting"] = element.get("cancelActivity", "true").strip() != "false"
    apply_fields(timer, tramita)
    if not check_timing(element, timer, problems):
        return None
    attached.setdefault("timers", []).append(timer)
    return timer


def _convert(found: Scan, problems: Problems) -> Imported:
    definition = _header(found, problems)
    read_vendor(found.process, problems)
    sources = SourceMap(process=origin_of(found.process))
    errors = declared_errors(found.process)
    definition["nodes"], suggestions = _scope(
        found, problems, sources, errors, _lanes(found.process)
    )
    return Imported(
        definition=definition, sources=sources, suggestions=suggestions, notes=problems.notes
    )


def _scope(
    found: Scan,
    problems: Problems,
    sources: SourceMap,
    errors: dict[str, Any],
    lanes: dict[str, str],
) -> tuple[list[dict[str, Any]], list[Suggestion]]:
    """The nodes of a process or of a sub-process (``found``), wired, and their suggestions;
    a sub-process's own nodes are imported the same way into its ``nodes``, their sources
    kept in ``sources.scopes`` and their suggestions with the sub-process's id in ``scope``."""
    suggestions: list[Suggestion] = []
    ids = _allocate_ids(
        [
            e
            for e in found.nodes
            if not is_escalation_event(e) and e.get("isForCompensation") != "true"
        ]
    )
    escalations: dict[str, tuple[Any, str]] = {}
    compensations = Compensations(problems)
    nodes: list[dict[str, Any]] = []
    endpoints: dict[str, Endpoint] = {}
    node_ids: dict[str, str] = {}
    starts = []
    for element in found.nodes:
        raw = str(element.get("id") or "")
        if not raw:
            problems.add(element, "missing_id", N_("every flow node needs an id"))
            continue
        taken = raw in endpoints or raw in escalations or raw in compensations.tasks
        if taken or raw in found.refused:
            problems.add(element, "duplicate_id", N_('id "%(id)s" is used twice'), id=raw)
            continue
        if compensations.take_task(element, raw):  # a node's compensation: not a node
            continue
        if is_escalation_event(element):  # names a timer's escalate_to: not a node
            queue = read_escalation(element, problems)
            if queue is None:
                found.refused.add(raw)
            else:
                escalations[raw] = (element, queue)
            continue
        node = map_node(element, ids[raw], problems)
        if node is None:
            found.refused.add(raw)
            continue
        if node["type"] == "subprocess":
            inner = scan_subprocess(element, problems)
            inner_sources = SourceMap(process=origin_of(element))
            node["nodes"], hints = _scope(inner, problems, inner_sources, errors, lanes)
            sources.scopes[node["id"]] = inner_sources
            suggestions += [msgspec.structs.replace(h, scope=(node["id"], *h.scope)) for h in hints]
        suggestions += _suggest(element, node, lanes.get(raw), problems)
        if node["type"] == "start":
            starts.append(element)
        nodes.append(node)
        node_ids[raw] = node["id"]
        endpoints[raw] = Endpoint(element, node["id"], node, node["type"])
        sources.nodes[node["id"]] = origin_of(element)
    for extra in starts[1:]:
        problems.add(extra, "several_starts", N_("a process has exactly one start event"))
    if not starts:
        problems.add(found.process, "no_start", N_("the process has no plain start event"))
    timer_ids: dict[str, set[str]] = {}
    for element in [*found.boundaries, *found.flows]:
        read_vendor(element, problems)  # nothing to suggest there: only the notes
    for element in found.boundaries:
        attached_ref = element.get("attachedToRef")
        if attached_ref in found.refused:
            continue
        if attached_ref not in node_ids:
            problems.add(
                element,
                "boundary.dangling",
                N_('attachedToRef "%(ref)s" names no task'),
                ref=str(attached_ref),
            )
            continue
        raw = str(element.get("id") or "")
        if not raw or raw in endpoints or raw in compensations.boundaries:
            problems.add(
                element, "duplicate_id", N_('id "%(id)s" is missing or used twice'), id=raw
            )
            continue
        owner = endpoints[attached_ref].target
        if compensations.take_boundary(element, raw, owner):
            continue
        if element.find(q(BPMN, "errorEventDefinition")) is not None:
            route = boundary_error(element, owner, errors, problems)
            if route is None:
                found.refused.add(raw)
                continue
            where = f"{owner['id']}.errors[{len(owner['errors']) - 1}]"
            endpoints[raw] = Endpoint(element, where, route, "boundary")
            continue
        timer = _boundary_timer(element, owner, timer_ids.setdefault(owner["id"], set()), problems)
        if timer is None:
            found.refused.add(raw)
            continue
        sources.timers.setdefault(owner["id"], {})[timer["id"]] = origin_of(element)
        endpoints[raw] = Endpoint(element, f"{owner['id']}.timers.{timer['id']}", timer, "boundary")
    flows = compensations.attach(found.flows, found.process)
    flows = attach_escalations(flows, escalations, endpoints, found.refused, problems)
    wire(flows, endpoints, node_ids, found.refused, problems, sources)
    nodes = collapse_merges(nodes)
    kept = {n["id"] for n in nodes}
    for node_id in set(sources.nodes) - kept:
        del sources.nodes[node_id]
    return nodes, [h for h in suggestions if (h.scope[0] if h.scope else h.node) in kept]


def import_bpmn_with_sources(xml: bytes, limits: XmlLimits = DEFAULT_LIMITS) -> Imported:
    """Import and keep the source map (for editors, and for :func:`import_and_validate`).

    Raises ``BadRequest`` for unsafe or malformed XML and ``DefinitionInvalid`` listing every
    element outside the subset or structurally broken, each with its BPMN id and line.
    """
    root = parse_xml(xml, limits)
    problems = Problems()
    found = scan(root, problems)
    if found is None:
        problems.raise_if_any()
        raise DefinitionInvalid(N_("The BPMN file has no process."))  # pragma: no cover
    imported = _convert(found, problems)
    problems.raise_if_any()
    return imported


def gaps_of_import(imported: Imported) -> list[FieldError]:
    """Every gap of the imported definition (:func:`~services.workflow.definition.gaps.gaps_of`,
    with the suggestions), against the BPMN element and line it came from."""
    found = gaps_of(imported.definition, imported.suggestions)
    return remap_errors(found, imported.definition, imported.sources)


def import_complete(xml: bytes, limits: XmlLimits = DEFAULT_LIMITS) -> Imported:
    """Import for publishing as is: refused (``DefinitionInvalid`` listing every gap) when
    Tramita-only data is missing, suggestions included, since publishing confirms nothing."""
    imported = import_bpmn_with_sources(xml, limits)
    gaps = gaps_of_import(imported)
    if gaps:
        raise DefinitionInvalid(GAPS, errors=gaps)
    return imported


def import_bpmn(xml: bytes, limits: XmlLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """The definition dict (canonical JSON format) for a BPMN file in the supported subset."""
    return import_bpmn_with_sources(xml, limits).definition


def _errors_of(result: object) -> list[FieldError]:
    candidates = getattr(result, "errors", result)
    if isinstance(candidates, Sequence) and not isinstance(candidates, str | bytes):
        return [e for e in candidates if isinstance(e, FieldError)]
    return []


def import_and_validate(
    xml: bytes,
    validate: Callable[[dict[str, Any]], object],
    limits: XmlLimits = DEFAULT_LIMITS,
) -> dict[str, Any]:
    """Import, run ``validate`` on the dict, and report its errors against BPMN elements.

    ``validate`` is the definition package's semantic check. It may raise ``ValidationFailed``
    (or ``DefinitionInvalid``) with ``errors``, or return a list of ``FieldError`` (or an object
    with an ``errors`` list); either way the errors come back as one ``DefinitionInvalid``
    whose paths read ``bpmn:userTask id="Task_1" line 12 [nodes[3] (task_1).queue]``.
    """
    imported = import_bpmn_with_sources(xml, limits)
    try:
        result = validate(imported.definition)
    except ValidationFailed as exc:
        raise DefinitionInvalid(
            exc.detail,
            errors=remap_errors(exc.errors, imported.definition, imported.sources),
        ) from exc
    errors = _errors_of(result)
    if errors:
        raise DefinitionInvalid(
            NOT_VALID,
            errors=remap_errors(errors, imported.definition, imported.sources),
        )
    return imported.definition


__all__ = [
    "Imported",
    "gaps_of_import",
    "import_and_validate",
    "import_bpmn",
    "import_bpmn_with_sources",
    "import_complete",
]
