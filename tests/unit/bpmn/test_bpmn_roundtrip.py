"""Export then import gives the definition back; every export validates against the OMG XSDs."""

from __future__ import annotations

from typing import Any

import pytest
from bpmnkit import (
    FIXTURES,
    example_definitions,
    module_definitions,
    semantic_errors,
    xsd_errors,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from contracts.errors import DefinitionInvalid
from services.workflow.definition.bpmn import export_bpmn, import_bpmn, normalise

EXAMPLES = example_definitions()
ALL = {
    **{f"example:{k}": v for k, v in EXAMPLES.items()},
    **{f"fixture:{k}": v for k, v in FIXTURES.items()},
    **{f"module:{k}": v for k, v in module_definitions().items()},
}
BPMN = "{http://www.omg.org/spec/BPMN/20100524/MODEL}"
BPMNDI = "{http://www.omg.org/spec/BPMN/20100524/DI}"


def test_there_are_examples_to_round_trip() -> None:
    assert EXAMPLES, "examples/*.json is empty"


@pytest.mark.parametrize("name", list(ALL), ids=list(ALL))
def test_import_of_export_is_the_definition(name: str) -> None:
    definition = ALL[name]
    assert import_bpmn(export_bpmn(definition)) == normalise(definition)


@pytest.mark.parametrize("name", list(ALL), ids=list(ALL))
def test_export_validates_against_the_bpmn_xsd(name: str) -> None:
    assert xsd_errors(export_bpmn(ALL[name])) == []


@pytest.mark.parametrize("name", ["everything", "phase2"])
def test_the_fixture_is_a_valid_definition(name: str) -> None:
    assert semantic_errors(FIXTURES[name]) == []


@pytest.mark.parametrize("name", [n for n in ALL if n != "fixture:awkward"])
def test_imported_export_validates_exactly_like_the_original(name: str) -> None:
    """Same parse, same semantic errors (examples name queues registered elsewhere)."""
    assert semantic_errors(import_bpmn(export_bpmn(ALL[name]))) == semantic_errors(ALL[name])


@pytest.mark.parametrize("name", list(ALL), ids=list(ALL))
def test_export_is_deterministic(name: str) -> None:
    assert export_bpmn(ALL[name]) == export_bpmn(ALL[name])


@pytest.mark.parametrize("name", list(ALL), ids=list(ALL))
def test_export_draws_every_node_and_flow(name: str) -> None:
    """Each scope (the process, each sub-process) on a plane of its own: a shape per flow node
    and boundary event, an edge with waypoints per flow and association."""
    root = etree.fromstring(export_bpmn(ALL[name]))
    scopes = [root.find(f"{BPMN}process"), *root.iter(f"{BPMN}subProcess")]
    planes = {p.get("bpmnElement"): p for p in root.iter(f"{BPMNDI}BPMNPlane")}
    assert sorted(planes) == sorted(s.get("id") for s in scopes)
    for scope in scopes:
        edge_tags = (f"{BPMN}sequenceFlow", f"{BPMN}association")
        flow_nodes = {e.get("id") for e in scope if e.tag not in edge_tags and e.get("id")}
        flows = {e.get("id") for e in scope if e.tag in edge_tags}
        plane = planes[scope.get("id")]
        shapes = {s.get("bpmnElement") for s in plane.iter(f"{BPMNDI}BPMNShape")}
        edges = {e.get("bpmnElement"): e for e in plane.iter(f"{BPMNDI}BPMNEdge")}
        assert (shapes, set(edges)) == (flow_nodes, flows), scope.get("id")
        assert all(len(e) >= 2 for e in edges.values())


def test_normalise_fills_only_the_documented_defaults() -> None:
    definition = {
        "key": "k",
        "nodes": [
            {"id": "f", "type": "parallel", "next": ["a"]},
            {"id": "x", "type": "exclusive", "default": "a"},
            {
                "id": "t",
                "name": "T",
                "type": "user_task",
                "timers": [{"id": "z", "duration": "PT1H"}],
            },
        ],
    }
    assert normalise(definition) == {
        "format": 1,
        "key": "k",
        "name": "k",
        "nodes": [
            {"id": "f", "type": "parallel", "next": "a"},
            {"id": "x", "type": "exclusive", "default": "a", "branches": []},
            {
                "id": "t",
                "name": "T",
                "type": "user_task",
                "timers": [{"id": "z", "duration": "PT1H", "interrupting": True}],
            },
        ],
    }


@pytest.mark.parametrize(
    ("definition", "path"),
    [
        ({"nodes": "x"}, "nodes"),
        ({"nodes": [{"id": "a b", "type": "end"}]}, "nodes[0]"),
        ({"nodes": [{"id": "a", "type": "start", "next": "zz"}]}, "nodes[0] (a).next"),
        ({"nodes": [{"id": "a", "type": "end"}, {"id": "a", "type": "end"}]}, "nodes[1]"),
        (
            {
                "nodes": [
                    {
                        "id": "a",
                        "name": "A",
                        "type": "user_task",
                        "timers": [{"id": "t", "next": "q"}],
                    }
                ]
            },
            "nodes[0] (a).timers[0].next",
        ),
    ],
    ids=["nodes-not-a-list", "bad-id", "dangling-next", "duplicate-id", "dangling-timer"],
)
def test_export_refuses_what_cannot_be_drawn(definition: dict[str, Any], path: str) -> None:
    with pytest.raises(DefinitionInvalid) as caught:
        export_bpmn(definition)
    assert [e.path for e in caught.value.errors] == [path]


# -- generated definitions ------------------------------------------------------------------

IDENT = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
TEXT = st.text(max_size=12)
HUMAN = ("approval", "user_task", "manual_task")
#: ``start`` is drawn once, first: the importer refuses a process with several start events.
TYPES = (
    "end",
    "validation",
    "decision_table",
    "service_task",
    "integration",
    "notification",
    "timer",
    "exclusive",
    "parallel",
    *HUMAN,
)


@st.composite
def timing(draw: st.DrawFn, allow_until: bool) -> dict[str, Any]:
    keys = ["duration", "business_days", *(["until"] if allow_until else [])]
    key = draw(st.sampled_from(keys))
    value = draw(st.integers(0, 400)) if key == "business_days" else draw(TEXT)
    return {key: value}


@st.composite
def node(draw: st.DrawFn, node_id: str, node_type: str, ids: list[str]) -> dict[str, Any]:
    target = st.sampled_from(ids)
    result: dict[str, Any] = {"id": node_id, "type": node_type}
    optional = {
        "name": TEXT,
        "consumes": st.lists(TEXT, max_size=3),
        "public": st.fixed_dictionaries({"label": TEXT}),
        "failure": st.dictionaries(st.sampled_from(["max_attempts", "jitter"]), JSON, max_size=2),
        "x_future_field": JSON,
    }
    for key, strategy in optional.items():
        if draw(st.booleans()):
            result[key] = draw(strategy)
    if node_type in ("approval",) or (node_type == "user_task" and draw(st.booleans())):
        result["outcomes"] = draw(st.dictionaries(IDENT, target, min_size=1, max_size=3))
    elif node_type == "exclusive":
        result["branches"] = draw(
            st.lists(st.fixed_dictionaries({"when": TEXT, "next": target}), min_size=1, max_size=3)
        )
        if draw(st.booleans()):
            result["default"] = draw(target)
    elif node_type == "parallel":
        result["next"] = draw(st.one_of(target, st.lists(target, min_size=2, max_size=3)))
    elif node_type != "end" and draw(st.booleans()):
        result["next"] = draw(target)
    if node_type == "end" and draw(st.booleans()):
        result["result"] = draw(st.sampled_from(["completed", "rejected", "expired", "failed"]))
    if node_type == "timer":
        result.update(draw(timing(allow_until=True)))
    if node_type == "validation":
        rule = st.fixed_dictionaries({"id": IDENT, "expr": TEXT, "message": TEXT})
        result["rules"] = draw(st.lists(rule, max_size=2))
    if node_type in HUMAN and draw(st.booleans()):
        timer_ids = draw(st.lists(IDENT, min_size=1, max_size=2, unique=True))
        timers = []
        for timer_id in timer_ids:
            timer = {"id": timer_id, **draw(timing(allow_until=False))}
            if draw(st.booleans()):
                timer["interrupting"] = draw(st.booleans())
            if draw(st.booleans()):
                timer["next"] = draw(target)
            if draw(st.booleans()):
                timer["escalate_to"] = draw(TEXT)
            timers.append(timer)
        result["timers"] = timers
    return result


@st.composite
def definitions(draw: st.DrawFn) -> dict[str, Any]:
    ids = draw(st.lists(IDENT, min_size=2, max_size=8, unique=True))
    types = ["start", *(draw(st.sampled_from(TYPES)) for _ in ids[1:])]
    nodes = [draw(node(i, t, ids)) for i, t in zip(ids, types, strict=True)]
    result: dict[str, Any] = {
        "format": 1,
        "key": draw(st.from_regex(r"[a-z][a-z0-9_]{0,6}(\.[a-z][a-z0-9_]{0,6})?", fullmatch=True)),
        "protocol_prefix": draw(TEXT),
        "nodes": nodes,
    }
    for key, strategy in {
        "name": TEXT,
        "description": TEXT,
        "searchable": st.lists(TEXT, max_size=2),
    }.items():
        if draw(st.booleans()):
            result[key] = draw(strategy)
    return result


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(definitions())
def test_generated_definitions_round_trip_and_validate(definition: dict[str, Any]) -> None:
    xml = export_bpmn(definition)
    assert xsd_errors(xml) == []
    assert import_bpmn(xml) == normalise(definition)
