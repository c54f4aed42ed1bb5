"""Sequence flows → ``next`` / ``outcomes`` / ``branches`` / ``default`` / ``timers[].next``.

In BPMN the graph lives in separate ``sequenceFlow`` elements; in the definition format each node
names where it goes, and *how* depends on its type: an approval's flows are the outcomes a
person picks (named by ``tramita:outcome`` or the flow's name), an exclusive gateway's flows are
CEL branches evaluated in file order plus one default, a parallel fork lists its targets. An
inclusive gateway with several outgoing flows forks like an exclusive one (a flow without a
condition is always taken: ``when: "true"``); with one, it joins.
Shapes the definition format cannot express (a task with two plain outgoing flows, a condition
on a task's flow) are refused here, against the flow's own id and line.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from services.workflow.definition.messages import N_

from .expressions import first_child, read_condition
from .extensions import read_tramita
from .ids import sanitise_node_id
from .namespaces import BPMN, TRAMITA, q
from .sources import Problems, SourceMap, origin_of


class Endpoint:
    """A flow source or target: the JSON dict it feeds and where its references are recorded."""

    def __init__(self, element: Any, owner: str, target: dict[str, Any], node_type: str) -> None:
        self.element = element
        self.owner = owner  # JSON node id the references belong to
        self.target = target  # node dict, or timer dict for a boundary event
        self.node_type = node_type  # node type, or "boundary"
        self.flows: list[Any] = []


def _condition(flow: Any, problems: Problems) -> tuple[bool, str | None]:
    expression = first_child(flow, BPMN, "conditionExpression")
    if expression is None:
        return False, None
    return True, read_condition(expression, problems)


def _wire_exclusive(
    source: Endpoint, ids: dict[str, str], problems: Problems, sources: SourceMap
) -> None:
    node, gateway = source.target, source.element
    default_flow = gateway.get("default")
    flow_ids = {flow.get("id") for flow in source.flows}
    if default_flow is not None and default_flow not in flow_ids:
        problems.add(
            gateway,
            "flow.default_missing",
            N_('default="%(flow)s" is not a sequence flow leaving this gateway'),
            flow=str(default_flow),
        )
    branches: list[dict[str, Any]] = []
    for flow in source.flows:
        has_condition, when = _condition(flow, problems)
        target = ids[flow.get("targetRef")]
        is_default = flow.get("id") == default_flow or (
            default_flow is None and len(source.flows) == 1 and not has_condition
        )
        if is_default:
            if has_condition:
                problems.add(
                    flow, "flow.default_with_condition", N_("the default flow has a condition")
                )
            node["default"] = target
            sources.refs[f"{source.owner}.default"] = origin_of(flow)
        elif not has_condition and source.node_type == "inclusive":
            branches.append({"when": "true", "next": target})
            sources.refs[f"{source.owner}.branches[{len(branches) - 1}]"] = origin_of(flow)
        elif not has_condition:
            problems.add(
                flow,
                "flow.missing_condition",
                N_(
                    "flow leaves exclusive gateway %(gateway)s with no condition and is not "
                    "its default"
                ),
                gateway=str(gateway.get("id")),
            )
        elif when is not None:
            branch: dict[str, Any] = {"when": when, "next": target}
            branch.update(read_tramita(flow, problems).properties)
            sources.refs[f"{source.owner}.branches[{len(branches)}]"] = origin_of(flow)
            branches.append(branch)
    node["branches"] = branches


def _inclusive_forks(source: Endpoint, incoming: dict[str, int], problems: Problems) -> bool:
    """An inclusive gateway forks when several flows leave it (or its one flow is conditional
    or its default) and joins otherwise; one that does both is refused (draw two gateways)."""
    gateway = source.element
    forks = len(source.flows) > 1 or gateway.get("default") is not None
    forks = forks or any(_has_condition(f) for f in source.flows)
    if forks and incoming.get(gateway.get("id"), 0) > 1:
        problems.add(
            gateway,
            "flow.inclusive_mixed",
            N_(
                "this inclusive gateway both joins (%(incoming)s incoming flows) and forks; "
                "draw one gateway to join and another to fork"
            ),
            incoming=incoming[gateway.get("id")],
        )
    return forks


def _has_condition(flow: Any) -> bool:
    return first_child(flow, BPMN, "conditionExpression") is not None


def _outcome_name(flow: Any) -> str | None:
    """``tramita:outcome`` as written, else the flow's label made an identifier (``Aprovar``)."""
    explicit = flow.get(q(TRAMITA, "outcome"))
    if explicit is not None and explicit.strip():
        return str(explicit.strip())
    label = flow.get("name")
    if label is not None and label.strip():
        return sanitise_node_id(str(label))
    return None


def _wire_outcomes(
    source: Endpoint, ids: dict[str, str], problems: Problems, sources: SourceMap
) -> None:
    outcomes: dict[str, str] = {}
    for flow in source.flows:
        name = _outcome_name(flow)
        if name is None:
            problems.add(
                flow,
                "flow.outcome_unnamed",
                N_(
                    "a flow leaving a human task with several outcomes needs tramita:outcome "
                    "or a name"
                ),
            )
        elif name in outcomes:
            problems.add(
                flow, "flow.outcome_duplicate", N_('outcome "%(name)s" is used twice'), name=name
            )
        else:
            outcomes[name] = ids[flow.get("targetRef")]
            sources.refs[f"{source.owner}.outcomes.{name}"] = origin_of(flow)
    source.target["outcomes"] = outcomes


def _wire_plain(
    source: Endpoint, ids: dict[str, str], problems: Problems, sources: SourceMap
) -> None:
    targets = [ids[flow.get("targetRef")] for flow in source.flows]
    if source.node_type == "end":
        for flow in source.flows:
            problems.add(flow, "flow.from_end", N_("an end event cannot have outgoing flows"))
    elif source.node_type == "event_gateway":
        source.target["next"] = targets  # always a list: validation wants two or more
    elif len(targets) == 1:
        source.target["next"] = targets[0]
        sources.refs[f"{source.owner}.next"] = origin_of(source.flows[0])
    elif source.node_type == "parallel" and targets:
        source.target["next"] = targets
    elif len(targets) > 1:
        problems.add(
            source.element,
            "flow.implicit_split",
            N_("%(count)s plain flows leave this element; draw a parallel or exclusive gateway"),
            count=len(targets),
        )


def _wants_outcomes(source: Endpoint) -> bool:
    if source.node_type == "approval":
        return True
    if source.node_type != "user_task":
        return False
    marked = any(flow.get(q(TRAMITA, "outcome")) is not None for flow in source.flows)
    return marked or len(source.flows) > 1


def wire(
    flows: Iterable[Any],
    endpoints: dict[str, Endpoint],
    node_ids: dict[str, str],
    refused: set[str],
    problems: Problems,
    sources: SourceMap,
) -> None:
    """Attach every flow to its source, then resolve each source's references by its type.

    ``endpoints`` maps BPMN ids of supported nodes and boundary events; ``node_ids`` maps BPMN
    ids of nodes (not boundary events) to JSON ids; flows touching ``refused`` elements are
    skipped because that element was already reported.
    """
    for flow in flows:
        source_ref, target_ref = flow.get("sourceRef"), flow.get("targetRef")
        if source_ref in refused or target_ref in refused:
            continue
        if source_ref not in endpoints:
            problems.add(
                flow,
                "flow.dangling",
                N_('sourceRef "%(ref)s" names no flow node'),
                ref=str(source_ref),
            )
            continue
        if target_ref not in node_ids:
            problems.add(
                flow,
                "flow.dangling",
                N_('targetRef "%(ref)s" names no flow node'),
                ref=str(target_ref),
            )
            continue
        endpoints[source_ref].flows.append(flow)
    incoming: dict[str, int] = {}
    for source in endpoints.values():
        for flow in source.flows:
            incoming[flow.get("targetRef")] = incoming.get(flow.get("targetRef"), 0) + 1
    for source in endpoints.values():
        forks = source.node_type == "inclusive" and _inclusive_forks(source, incoming, problems)
        if source.node_type != "exclusive" and not forks:
            for flow in source.flows:
                if first_child(flow, BPMN, "conditionExpression") is not None:
                    problems.add(
                        flow,
                        "flow.condition_outside_gateway",
                        N_("only flows leaving an exclusive gateway may have conditions"),
                    )
        if source.node_type == "exclusive" or forks:
            _wire_exclusive(source, node_ids, problems, sources)
        elif _wants_outcomes(source):
            _wire_outcomes(source, node_ids, problems, sources)
        else:
            _wire_plain(source, node_ids, problems, sources)


_MERGE_KEYS = frozenset({"id", "type", "name", "branches", "default"})


def _retarget(node: dict[str, Any], merged: dict[str, str]) -> None:
    def follow(target: Any) -> Any:
        seen = set()
        while isinstance(target, str) and target in merged and target not in seen:
            seen.add(target)
            target = merged[target]
        return target

    if isinstance(node.get("next"), list):
        node["next"] = [follow(t) for t in node["next"]]
    elif "next" in node:
        node["next"] = follow(node["next"])
    if isinstance(node.get("outcomes"), dict):
        node["outcomes"] = {k: follow(v) for k, v in node["outcomes"].items()}
    for branch in node.get("branches") or []:
        branch["next"] = follow(branch.get("next"))
    if "default" in node:
        node["default"] = follow(node["default"])
    for timer in [*(node.get("timers") or []), *(node.get("errors") or [])]:
        if "next" in timer:
            timer["next"] = follow(timer["next"])


def collapse_merges(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop exclusive gateways that only merge (no branches, one default, nothing else set).

    Modelers draw an XOR gateway where paths join; the definition format joins implicitly (two
    nodes may name the same ``next``) and requires branches on every exclusive node, so a pure
    merge is redundant there. Its incoming references go straight to its target instead. A
    merge whose target is itself (a loop of merges) is kept, for validation to report.
    """
    merged = {
        n["id"]: n["default"]
        for n in nodes
        if n["type"] == "exclusive"
        and not n.get("branches")
        and isinstance(n.get("default"), str)
        and n["default"] != n["id"]
        and set(n) <= _MERGE_KEYS
    }
    for node_id in list(merged):
        target, seen = merged[node_id], {node_id}
        while target in merged and target not in seen:
            seen.add(target)
            target = merged[target]
        if target in seen:
            del merged[node_id]
    kept = [n for n in nodes if n["id"] not in merged]
    for node in kept:
        _retarget(node, merged)
    return kept
