"""The minimum shape a definition needs before it can be drawn as BPMN.

The exporter is used on drafts as well as on published versions, so it does not require a
*valid* definition (that is the definition package's job). It does require what XML itself
needs: node ids that are XML names and unique, and references that point at existing nodes —
otherwise the file would carry dangling ``IDREF``s and no modeler would open it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import msgspec

from contracts.errors import FieldError
from services.workflow.definition.messages import N_

from .ids import is_ncname
from .writer import xml_attribute_ok


def _targets(node: Mapping[str, Any]) -> Iterator[tuple[str, object]]:
    nexts = node.get("next")
    if isinstance(nexts, list):
        for index, target in enumerate(nexts):
            yield f"next[{index}]", target
    elif "next" in node:
        yield "next", nexts
    outcomes = node.get("outcomes")
    if isinstance(outcomes, Mapping):
        for outcome, target in outcomes.items():
            yield f"outcomes.{outcome}", target
    elif "outcomes" in node:
        yield "outcomes", outcomes
    branches = node.get("branches")
    for index, branch in enumerate(branches if isinstance(branches, list) else []):
        yield f"branches[{index}].next", branch.get("next") if isinstance(branch, Mapping) else None
    if "default" in node:
        yield "default", node["default"]
    routed = node.get("type") in ("service_task", "integration", "call", "subprocess")
    routes = node.get("errors") if routed else None
    for index, route in enumerate(routes if isinstance(routes, list) else []):
        if isinstance(route, Mapping) and "next" in route:
            yield f"errors[{index}].next", route["next"]
    timers = node.get("timers")
    for index, timer in enumerate(timers if isinstance(timers, list) else []):
        if not isinstance(timer, Mapping):
            yield f"timers[{index}]", None
        elif "next" in timer:
            yield f"timers[{index}].next", timer["next"]


def check_exportable(definition: object) -> list[FieldError]:
    """Every reason the definition cannot become well-formed BPMN, with JSON paths."""
    if not isinstance(definition, Mapping) or not isinstance(definition.get("nodes"), list):
        return [FieldError.of("nodes", "bpmn.export.shape", N_("nodes must be a list"))]
    errors: list[FieldError] = []
    nodes: list[Any] = definition["nodes"]
    ids: set[str] = set()
    for index, node in enumerate(nodes):
        path = f"nodes[{index}]"
        if not isinstance(node, Mapping) or not is_ncname(node.get("id")):
            errors.append(FieldError.of(path, "bpmn.export.id", N_("each node needs a valid id")))
        elif node["id"] in ids:
            errors.append(FieldError.of(path, "bpmn.export.duplicate", N_("the id is used twice")))
        else:
            ids.add(node["id"])
    for index, node in enumerate(nodes):
        if not isinstance(node, Mapping):
            continue
        path = f"nodes[{index}] ({node.get('id')})"
        outcomes = node.get("outcomes")
        for outcome in outcomes if isinstance(outcomes, Mapping) else {}:
            if not outcome or not xml_attribute_ok(outcome) or outcome != outcome.strip():
                errors.append(
                    FieldError.of(
                        f"{path}.outcomes",
                        "bpmn.export.outcome",
                        N_("outcome names must be non-empty text without surrounding spaces"),
                    )
                )
        for where, target in _targets(node):
            if not isinstance(target, str) or target not in ids:
                errors.append(
                    FieldError.of(
                        f"{path}.{where}",
                        "bpmn.export.dangling",
                        N_("the reference does not name a node of this definition"),
                    )
                )
        if node.get("type") == "subprocess":  # its own nodes, ids unique among them
            inner = check_exportable({"nodes": node.get("nodes")})
            errors += [msgspec.structs.replace(e, path=f"{path}.{e.path}") for e in inner]
    return errors
