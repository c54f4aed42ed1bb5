"""Where each part of an imported definition came from, so errors speak the modeler's language.

A person who drew ``Task_0x1y`` in a modeler cannot act on ``nodes[3] (task_0x1y)``; they can act
on ``bpmn:userTask id="Task_0x1y" line 12``. The importer records an :class:`Origin` for the
process, every node, every boundary timer and every sequence flow it turned into a reference,
and :func:`remap_errors` rewrites the JSON paths of semantic errors onto them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import msgspec

from contracts.errors import DefinitionInvalid, FieldError
from services.workflow.definition.messages import N_

from .namespaces import split

NOT_IMPORTED = N_("The BPMN file cannot be imported; each problem names the element where it is.")
"""The ``detail`` of an import refused for its structure (a msgid: the CLI translates it)."""


class Origin(msgspec.Struct, frozen=True, kw_only=True):
    """One BPMN element: its local name, its id as written, and its line in the file."""

    tag: str
    bpmn_id: str | None = None
    line: int | None = None

    def describe(self) -> str:
        text = self.tag if self.tag.split(" ")[0].count(":") else f"bpmn:{self.tag}"
        if self.bpmn_id is not None:
            text += f' id="{self.bpmn_id}"'
        if self.line is not None:
            text += f" line {self.line}"
        return text


def origin_of(element: Any) -> Origin:
    """The element's origin; an element without id is named inside its nearest ancestor's id."""
    _, local = split(element.tag)
    bpmn_id = element.get("id")
    line = element.sourceline
    ancestor = element.getparent()
    while bpmn_id is None and ancestor is not None:
        if ancestor.get("id") is not None:
            local = f"{local} in bpmn:{split(ancestor.tag)[1]}"
            bpmn_id = ancestor.get("id")
        ancestor = ancestor.getparent()
    return Origin(
        tag=local,
        bpmn_id=str(bpmn_id) if bpmn_id is not None else None,
        line=int(line) if line is not None else None,
    )


class SourceMap(msgspec.Struct, kw_only=True):
    """Origins keyed by JSON location: node id, ``(node id, timer id)``, ``node id.ref``.

    ``refs`` keys look like ``review.outcomes.approve``, ``route.branches[0]``, ``route.default``
    or ``task.next``: the flow that became that reference. ``scopes`` holds the map of each
    embedded sub-process's own elements by its node id (its ``process`` is the sub-process).
    """

    process: Origin
    nodes: dict[str, Origin] = msgspec.field(default_factory=dict)
    timers: dict[str, dict[str, Origin]] = msgspec.field(default_factory=dict)
    refs: dict[str, Origin] = msgspec.field(default_factory=dict)
    scopes: dict[str, SourceMap] = msgspec.field(default_factory=dict)


class Problems:
    """Collects every structural problem so the modeler sees them all in one round."""

    def __init__(self) -> None:
        self.errors: list[FieldError] = []
        self.notes: list[FieldError] = []

    def add(self, where: Origin | Any, code: str, template: str, **params: str | int) -> None:
        """One problem at ``where``: ``template`` is a catalog msgid (``N_``) filled from
        ``params`` and rendered in the reader's language where it is shown."""
        origin = where if isinstance(where, Origin) else origin_of(where)
        self.errors.append(FieldError.of(origin.describe(), f"bpmn.{code}", template, **params))

    def note(self, where: Origin | Any, code: str, template: str, **params: str | int) -> None:
        """Something read and deliberately ignored: reported, never a refusal."""
        origin = where if isinstance(where, Origin) else origin_of(where)
        self.notes.append(FieldError.of(origin.describe(), f"bpmn.{code}", template, **params))

    def raise_if_any(self) -> None:
        if self.errors:
            raise DefinitionInvalid(NOT_IMPORTED, errors=self.errors)


_NODE = re.compile(r"nodes\[(\d+)\](?:\s*\(([^)]*)\))?")
_TIMER = re.compile(r"timers\[(\d+)\]")
_REF = re.compile(r"(branches\[\d+\]|default|next|outcomes[.\[]['\"]?([^'\"\]\s.]+))")


def _node_id(definition: dict[str, Any], match: re.Match[str]) -> str | None:
    if match.group(2):
        return match.group(2).strip()
    nodes = definition.get("nodes")
    index = int(match.group(1))
    if isinstance(nodes, list) and index < len(nodes) and isinstance(nodes[index], dict):
        node_id = nodes[index].get("id")
        return node_id if isinstance(node_id, str) else None
    return None


def _node_of(definition: dict[str, Any], node_id: str) -> dict[str, Any]:
    nodes = definition.get("nodes")
    found = [n for n in nodes or [] if isinstance(n, dict) and n.get("id") == node_id]
    return found[0] if isinstance(nodes, list) and found else {}


def _origin_for(path: str, definition: dict[str, Any], sources: SourceMap) -> Origin:
    match = _NODE.search(path)
    if match is None:
        return sources.process
    node_id = _node_id(definition, match)
    if node_id is None or node_id not in sources.nodes:
        return sources.process
    rest = path[match.end() :]
    inner = sources.scopes.get(node_id)
    if inner is not None and rest.startswith(".nodes["):  # a step inside the sub-process
        return _origin_for(rest[1:], _node_of(definition, node_id), inner)
    timer = _TIMER.search(rest)
    if timer is not None:
        timers = definition["nodes"][int(match.group(1))].get("timers") or []
        index = int(timer.group(1))
        if index < len(timers) and isinstance(timers[index], dict):
            found = sources.timers.get(node_id, {}).get(str(timers[index].get("id")))
            if found is not None:
                return found
    ref = _REF.search(rest)
    if ref is not None:
        key = f"outcomes.{ref.group(2)}" if ref.group(2) else ref.group(1)
        found = sources.refs.get(f"{node_id}.{key}")
        if found is not None:
            return found
    return sources.nodes[node_id]


def remap_errors(
    errors: Iterable[FieldError], definition: dict[str, Any], sources: SourceMap
) -> list[FieldError]:
    """Rewrite JSON paths (``nodes[3] (review).queue``) onto BPMN elements, keeping the old path.

    The JSON path stays in brackets because it is what the definition docs talk about, and it
    disambiguates errors on a field of an element.
    """
    remapped = []
    for error in errors:
        origin = _origin_for(error.path, definition, sources)
        remapped.append(msgspec.structs.replace(error, path=f"{origin.describe()} [{error.path}]"))
    return remapped
