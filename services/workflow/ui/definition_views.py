"""Definitions as text a person can read: swimlanes, per-node errors, node-by-node comparison.

These work on the definition *dict* (the stored canonical JSON or an uploaded file), not on the
parsed Structs, because an upload that fails validation must still be shown node by node with
its errors beside the offending node. The ordered list per swimlane is the accessible
equivalent of a diagram, so every fact a diagram would draw (type, queue, form, handler,
conditions, timers, transitions) is spelled out here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

import msgspec

from contracts.errors import FieldError
from core.i18n import N_, gettext, localized, ngettext
from services.workflow.definition.compiler import WORKER_QUEUES
from services.workflow.definition.drafts.scopes import Scope, scope_text, step_label

HUMAN: Final = frozenset({"approval", "user_task", "manual_task"})
DEFAULT_WORKER_QUEUE: Final[Mapping[str, str]] = {
    str(cls.__struct_config__.tag): queue for cls, queue in WORKER_QUEUES.items()
}
"""The engine's default worker queue per node type (the compiler's table, keyed by tag)."""

INLINE_LANE: Final = N_("(engine — inline)")
"""Start, gateways and end run inline in the engine: no queue, one lane of their own."""

_NODE_PATH = re.compile(r"nodes\[(\d+)\](?: \(([A-Za-z0-9_.-]+)\))?")
COMPARED: Final = (
    "type",
    "name",
    "queue",
    "form",
    "handler",
    "next",
    "outcomes",
    "branches",
    "default",
    "timers",
    "rules",
    "duration",
    "business_days",
    "until",
    "policy",
    "consumes",
    "produces",
    "requires",
    "public",
    "failure",
    "result",
    "template",
    "compensation",
    "outcome_requires",
    "table",
)


class InnerStep(msgspec.Struct, frozen=True, kw_only=True):
    """A step inside an embedded sub-process, named by its chain of steps as the draft editor
    names it (``analise \u203a conferir``); ``anchor`` is that chain joined by dots, so it
    never equals a top-level id (ids have no dots) even when the inner id repeats one."""

    anchor: str
    label: str
    name: str | None
    type: str
    lane: str
    queue_kind: str
    form: str | None
    handler: str | None
    transitions: list[tuple[str, str, str]]
    """(words, target's anchor, target's label): a transition stays in its own scope."""
    conditions: list[str]
    timers: list[str]


class NodeView(msgspec.Struct, frozen=True, kw_only=True):
    position: int
    id: str
    name: str | None
    type: str
    lane: str
    queue_kind: str
    form: str | None
    handler: str | None
    transitions: list[tuple[str, str]]
    conditions: list[str]
    timers: list[str]
    errors: list[FieldError]
    inner: list[InnerStep] = []
    """A sub-process's steps at every depth, each nested one's right after it."""


class Lane(msgspec.Struct, frozen=True, kw_only=True):
    title: str
    kind: str
    nodes: list[NodeView]


class NodeChange(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    change: str
    fields: list[str]


def _nodes(definition: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    nodes = definition.get("nodes")
    if not isinstance(nodes, list):
        return []
    return [n for n in nodes if isinstance(n, Mapping)]


def _lane(node: Mapping[str, Any]) -> tuple[str, str]:
    kind = str(node.get("type"))
    queue = node.get("queue")
    if kind in HUMAN:
        return str(queue or "—"), gettext("queue of people")
    if kind in DEFAULT_WORKER_QUEUE:
        return str(queue or DEFAULT_WORKER_QUEUE[kind]), gettext("queue of automatic work")
    return gettext(INLINE_LANE), gettext("inline")


def _transitions(node: Mapping[str, Any]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    nxt = node.get("next")
    if isinstance(nxt, str):
        found.append((gettext("goes to"), nxt))
    elif isinstance(nxt, list):
        found.extend((gettext("parallel branch to"), str(t)) for t in nxt)
    outcomes = node.get("outcomes")
    if isinstance(outcomes, Mapping):
        found.extend((_outcome_to(str(k)), str(v)) for k, v in outcomes.items())
    for i, branch in enumerate(node.get("branches") or ()):
        if isinstance(branch, Mapping):
            found.append((gettext("condition %(n)s to") % {"n": i + 1}, str(branch.get("next"))))
    if node.get("default"):
        found.append((gettext("otherwise to"), str(node["default"])))
    for timer in _timers_of(node):
        if timer.get("next"):
            found.append(
                (gettext("deadline «%(id)s» to") % {"id": timer.get("id")}, str(timer["next"]))
            )
    return found


def _outcome_to(outcome: str) -> str:
    return gettext("outcome «%(outcome)s» to") % {"outcome": outcome}


def _timers_of(node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [t for t in node.get("timers") or () if isinstance(t, Mapping)]


def _timing(item: Mapping[str, Any]) -> str:
    if item.get("business_days"):
        days = int(item["business_days"])
        return ngettext("%(num)d business day", "%(num)d business days", days) % {"num": days}
    if item.get("duration"):
        return gettext("duration %(value)s") % {"value": item["duration"]}
    if item.get("until"):
        return gettext("until %(value)s") % {"value": item["until"]}
    return gettext("no deadline set")


def _timers(node: Mapping[str, Any]) -> list[str]:
    described = []
    for timer in _timers_of(node):
        text = f"{timer.get('id')}: {_timing(timer)}"
        text += (
            "" if timer.get("interrupting", True) else " (" + gettext("does not interrupt") + ")"
        )
        if timer.get("escalate_to"):
            text += ", " + gettext("escalates to %(queue)s") % {"queue": timer["escalate_to"]}
        described.append(text)
    if node.get("type") == "timer":
        described.append(_timing(node))
    return described


def _conditions(node: Mapping[str, Any]) -> list[str]:
    found = [
        f"{b.get('when')} → {b.get('next')}"
        for b in node.get("branches") or ()
        if isinstance(b, Mapping)
    ]
    found.extend(
        f"regra {r.get('id')}: {r.get('expr')}"
        for r in node.get("rules") or ()
        if isinstance(r, Mapping)
    )
    return found


def node_errors(
    definition: Mapping[str, Any], errors: Sequence[FieldError]
) -> tuple[dict[str, list[FieldError]], list[FieldError]]:
    """Errors keyed by node id (from ``nodes[3] (review).next``), and the rest (header, file).

    BPMN errors read ``bpmn:userTask id="T" line 12 [nodes[3] (t).queue]``: the bracketed
    JSON path inside still names the node, so they land beside it too.
    """
    ids = [str(n.get("id")) for n in _nodes(definition)]
    by_node: dict[str, list[FieldError]] = {}
    general: list[FieldError] = []
    for error in map(localized, errors):
        match = _NODE_PATH.search(error.path)
        node_id = None
        if match is not None:
            if match.group(2) in ids:
                node_id = match.group(2)
            elif int(match.group(1)) < len(ids):
                node_id = ids[int(match.group(1))]
        if node_id is None:
            general.append(error)
        else:
            by_node.setdefault(node_id, []).append(error)
    return by_node, general


def swimlanes(
    definition: Mapping[str, Any], errors: Mapping[str, list[FieldError]] | None = None
) -> list[Lane]:
    """Nodes grouped by queue, lanes in order of first appearance, nodes in definition order."""
    lanes: dict[str, tuple[str, list[NodeView]]] = {}
    for position, node in enumerate(_nodes(definition), start=1):
        lane, kind = _lane(node)
        node_id = str(node.get("id"))
        view = NodeView(
            position=position,
            id=node_id,
            name=node.get("name") if isinstance(node.get("name"), str) else None,
            type=str(node.get("type")),
            lane=lane,
            queue_kind=kind,
            form=_text(node.get("form")),
            handler=_text(node.get("handler")),
            transitions=_transitions(node),
            conditions=_conditions(node),
            timers=_timers(node),
            errors=list((errors or {}).get(node_id, ())),
            inner=inner_steps(node),
        )
        lanes.setdefault(lane, (kind, []))[1].append(view)
    return [Lane(title=title, kind=kind, nodes=nodes) for title, (kind, nodes) in lanes.items()]


def inner_steps(node: Mapping[str, Any], outer: Scope = ()) -> list[InnerStep]:
    """The steps inside a ``subprocess`` node, in definition order and at any depth (none for
    another type): what the diagram shows only on the sub-process's own drill-down plane."""
    if node.get("type") != "subprocess":
        return []
    scope = (*outer, str(node.get("id")))
    found: list[InnerStep] = []
    for inner in _nodes(node):
        chain = (*scope, str(inner.get("id")))
        lane, kind = _lane(inner)
        found.append(
            InnerStep(
                anchor=scope_text(chain),
                label=step_label(chain),
                name=_text(inner.get("name")),
                type=str(inner.get("type")),
                lane=lane,
                queue_kind=kind,
                form=_text(inner.get("form")),
                handler=_text(inner.get("handler")),
                transitions=[
                    (words, scope_text((*scope, target)), step_label((*scope, target)))
                    for words, target in _transitions(inner)
                ],
                conditions=_conditions(inner),
                timers=_timers(inner),
            )
        )
        found.extend(inner_steps(inner, scope))
    return found


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def compare(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[NodeChange]:
    """Node by node: removed, added and changed (with the fields that differ), in new order."""
    before = {str(n.get("id")): n for n in _nodes(old)}
    after = {str(n.get("id")): n for n in _nodes(new)}
    changes = [NodeChange(id=i, change="removed", fields=[]) for i in before if i not in after]
    for node_id, node in after.items():
        previous = before.get(node_id)
        if previous is None:
            changes.append(NodeChange(id=node_id, change="added", fields=[]))
            continue
        keys = sorted(set(previous) | set(node), key=_field_order)
        differ = [k for k in keys if k != "id" and previous.get(k) != node.get(k)]
        changes.append(
            NodeChange(id=node_id, change="changed" if differ else "same", fields=differ)
        )
    return changes


def _field_order(field: str) -> tuple[int, str]:
    return (COMPARED.index(field) if field in COMPARED else len(COMPARED), field)
