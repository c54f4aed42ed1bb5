"""Error boundary events: a service task's ``errors`` routes ↔ ``bpmn:boundaryEvent`` with an
``errorEventDefinition`` whose ``errorRef`` names a root ``bpmn:error`` carrying the
``errorCode``; an ``errorEventDefinition`` without ``errorRef`` is the catch-all ``*``.

BPMN error boundary events always interrupt their task, which is what a route does: the step
ends and the token takes the route's flow. The route's other fields (``store``) travel as
``tramita`` extensions on the boundary event, like a boundary timer's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from services.workflow.definition.messages import N_

from .extensions import read_tramita
from .namespaces import BPMN, q
from .nodes import apply_fields, event_definitions
from .sources import Problems

ROUTED_TYPES: Final = frozenset({"service_task", "integration", "call", "subprocess"})
_CODE: Final = re.compile(r"^([a-z][a-z0-9_]{0,63}|\*)$")


def exportable_routes(node: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    """The node's routes when every one can be drawn as a boundary event (else ``None``: the
    exporter keeps ``errors`` as a ``tramita:property``, so nothing is lost on a draft)."""
    routes = node.get("errors")
    if node.get("type") not in ROUTED_TYPES or not isinstance(routes, list) or not routes:
        return None
    for route in routes:
        if not isinstance(route, Mapping) or not isinstance(route.get("next"), str):
            return None
        if not isinstance(route.get("code"), str) or not _CODE.fullmatch(route["code"]):
            return None
    return routes


def declared_errors(process: Any) -> dict[str, Any]:
    """The document's ``bpmn:error`` elements by id (they are root elements, beside the
    process)."""
    root = process.getparent()
    if root is None:
        return {}
    return {str(e.get("id")): e for e in root.iter(q(BPMN, "error")) if e.get("id")}


def boundary_error(
    element: Any, attached: dict[str, Any], errors: Mapping[str, Any], problems: Problems
) -> dict[str, Any] | None:
    """Read an error boundary event into a route appended to the attached node's ``errors``;
    ``None`` (with the problem recorded) when it cannot be one."""
    definitions = event_definitions(element, problems)
    if definitions is None:
        return None
    kinds = [d.tag.rpartition("}")[2] for d in definitions]
    if kinds != ["errorEventDefinition"]:
        problems.add(
            element,
            "unsupported.event",
            N_("a boundary event has exactly one timer or error event definition"),
        )
        return None
    if attached.get("type") not in ROUTED_TYPES:
        problems.add(
            element,
            "boundary.error_owner",
            N_("an error boundary event must be attached to a service task"),
        )
        return None
    if element.get("cancelActivity", "true").strip() == "false":
        problems.add(
            element,
            "boundary.error_interrupting",
            N_('an error boundary event always interrupts its task (cancelActivity="false")'),
        )
        return None
    code = _code(definitions[0], errors, problems)
    if code is None:
        return None
    route: dict[str, Any] = {"code": code}
    apply_fields(route, read_tramita(element, problems))
    attached.setdefault("errors", []).append(route)
    return route


def _code(definition: Any, errors: Mapping[str, Any], problems: Problems) -> str | None:
    ref = definition.get("errorRef")
    if ref is None:
        return "*"
    error = errors.get(str(ref).strip())
    if error is None:
        problems.add(
            definition, "boundary.error_ref", N_('errorRef "%(ref)s" names no bpmn:error'), ref=ref
        )
        return None
    code = str(error.get("errorCode") or "").strip()
    if code == "*" or not _CODE.fullmatch(code):
        problems.add(
            error,
            "error.code",
            N_('errorCode "%(value)s" is not an identifier such as payment_refused'),
            value=code,
        )
        return None
    return code
