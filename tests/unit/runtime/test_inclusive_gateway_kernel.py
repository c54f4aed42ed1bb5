"""The inclusive (OR) gateway in the pure kernel (BPMN 2.0 §13.3.3): the fork takes every branch
whose condition holds (the default only when none does), and the join waits for exactly the
tokens that can still arrive."""

from __future__ import annotations

from typing import Any

import pytest
from wfdrive import Driver
from wfkit import compile_doc

from contracts.errors import DefinitionInvalid
from services.workflow.runtime.kernel.effects import Transitioned


def _doc(*, default: bool = True, around: bool = False) -> dict[str, Any]:
    """begin → or_split {a if x>1, b if x>2, c if x>3, default d} → or_join → after → finish.
    ``around``: the OR block is one branch of a parallel fork whose other branch is task ``p``."""
    nodes: list[dict[str, Any]] = [
        {"id": "begin", "type": "start", "produces": ["x"], "next": "par" if around else "split"},
        {
            "id": "split",
            "type": "inclusive",
            "branches": [
                {"when": "x > 1", "next": "a"},
                {"when": "x > 2", "next": "b"},
                {"when": "x > 3", "next": "c"},
            ],
            **({"default": "d"} if default else {}),
        },
        *(
            {"id": n, "type": "service_task", "handler": "work.do", "next": "join"}
            for n in ("a", "b", "c", "d")
        ),
        {"id": "join", "type": "inclusive", "next": "pjoin" if around else "after"},
        {"id": "after", "type": "service_task", "handler": "work.do", "next": "finish"},
        {"id": "finish", "type": "end"},
    ]
    if not default:
        nodes = [n for n in nodes if n["id"] != "d"]
    if around:
        nodes += [
            {"id": "par", "type": "parallel", "next": ["split", "p"]},
            {"id": "p", "type": "service_task", "handler": "work.do", "next": "pjoin"},
            {"id": "pjoin", "type": "parallel", "next": "after"},
        ]
    return {
        "format": 1,
        "key": "test.flow",
        "name": "OR",
        "protocol_prefix": "OR",
        "nodes": nodes,
    }


def _at(d: Driver) -> dict[str, str]:
    return {t.id: t.node_id for t in d.state.tokens}


def test_the_fork_takes_every_branch_whose_condition_holds() -> None:
    d = Driver(compile_doc(_doc()))
    d.start(x=3)
    assert _at(d) == {"t.0": "a", "t.1": "b"}
    causes = {e.to_node: e.cause for e in d.effects if isinstance(e, Transitioned)}
    assert causes["a"] == "branches[0]" and causes["b"] == "branches[1]"


def test_the_default_is_taken_only_when_no_condition_holds() -> None:
    d = Driver(compile_doc(_doc()))
    d.start(x=0)
    assert _at(d) == {"t.3": "d"}
    d.succeed("d")
    assert _at(d) == {"t": "after"}


def test_no_condition_and_no_default_fails_the_instance_at_the_gateway() -> None:
    d = Driver(compile_doc(_doc(default=False)))
    d.start(x=0)
    assert d.state.status == "failed"
    assert d.state.failure is not None
    assert (d.state.failure.reason_code, d.state.failure.node_id) == ("no_branch_taken", "split")


def test_the_join_waits_for_exactly_the_tokens_that_were_started() -> None:
    d = Driver(compile_doc(_doc()))
    d.start(x=3)
    d.succeed("b")
    assert _at(d) == {"t.0": "a", "t.1": "join"}
    d.succeed("a")
    assert _at(d) == {"t": "after"}
    d.succeed("after")
    assert d.state.status == "completed"
    assert d.replayed() == d.state


def test_one_branch_taken_passes_the_join_at_once() -> None:
    d = Driver(compile_doc(_doc()))
    d.start(x=2)
    d.succeed("a")
    assert _at(d) == {"t": "after"}


def test_a_token_on_a_parallel_branch_that_cannot_reach_the_join_is_not_waited_for() -> None:
    d = Driver(compile_doc(_doc(around=True)))
    d.start(x=4)
    assert _at(d) == {"t.0.0": "a", "t.0.1": "b", "t.0.2": "c", "t.1": "p"}
    for n in ("c", "a", "b"):
        d.succeed(n)
    assert _at(d) == {"t.0": "pjoin", "t.1": "p"}
    d.succeed("p")
    assert _at(d) == {"t": "after"}


def _errors(doc: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(DefinitionInvalid) as caught:
        compile_doc(doc)
    return [(e.path, e.code) for e in caught.value.errors]


def test_an_inclusive_fork_closed_by_a_parallel_join_is_refused_naming_the_fork() -> None:
    doc = _doc()
    for n in doc["nodes"]:
        if n["id"] == "join":
            n["type"] = "parallel"
    assert ("nodes[1] (split)", "gateway_kind_mismatch") in _errors(doc)


def test_a_gateway_that_both_forks_and_joins_is_refused() -> None:
    doc = _doc()
    doc["nodes"][1]["next"] = "after"
    assert ("nodes[1] (split)", "inclusive_shape") in _errors(doc)


def test_a_branch_may_go_straight_to_the_join_and_waits_there_for_the_others() -> None:
    doc = _doc()
    doc["nodes"][1]["branches"][1]["next"] = "join"  # x > 2: no step on that branch
    doc["nodes"] = [n for n in doc["nodes"] if n["id"] != "b"]
    d = Driver(compile_doc(doc))
    d.start(x=3)
    assert _at(d) == {"t.0": "a", "t.1": "join"}
    d.succeed("a")
    assert _at(d) == {"t": "after"}


def test_an_unknown_node_type_lists_inclusive_among_the_allowed_ones() -> None:
    doc = _doc()
    doc["nodes"][1]["type"] = "or"
    with pytest.raises(DefinitionInvalid) as caught:
        compile_doc(doc)
    assert "inclusive" in caught.value.errors[0].message
