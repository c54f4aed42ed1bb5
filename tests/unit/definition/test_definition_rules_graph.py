"""Semantic checks on the graph: structure, reachability, parallel balance, dataflow."""

from __future__ import annotations

from typing import Any

import pytest
from wfdocs import end, errors_of, flow, one, start, task, work
from wfkit import COMPILER, KNOWN, TABLES, example

from services.workflow.definition import validate


@pytest.mark.parametrize("name", ["purchase_approval", "six_node", "parallel_review"])
def test_examples_are_valid(name: str) -> None:
    assert validate(example(name), KNOWN, COMPILER, TABLES) == []


def test_the_minimal_flow_is_valid() -> None:
    assert errors_of(flow(start(), work(), end())) == []


def test_no_start() -> None:
    error = one(flow(work(), end()), "no_start")
    assert error.path == "nodes" and "exactly one start" in error.message


def test_two_starts() -> None:
    second = {**start(), "id": "again"}
    one(flow(start(), second, work(), end()), "multiple_starts", "again")


def test_no_end() -> None:
    error = one(flow(start(), work(nxt="work")), "no_end")
    assert "at least one end" in error.message


def test_duplicate_ids() -> None:
    error = one(flow(start(), work(), work(), end()), "duplicate_id", "work")
    assert error.path == "nodes[2] (work).id"


@pytest.mark.parametrize(
    ("node", "field"),
    [
        (work(nxt="nowhere"), "next"),
        (task("work", {"ok": "finish", "no": "nowhere"}), "outcomes.no"),
        (
            {
                "id": "work",
                "type": "exclusive",
                "branches": [{"when": "x > 1", "next": "nowhere"}],
                "default": "finish",
            },
            "branches[0].next",
        ),
        (
            task(
                "work",
                {"ok": "finish", "no": "finish"},
                timers=[{"id": "late", "duration": "PT1H", "next": "nowhere"}],
            ),
            "timers[0].next",
        ),
    ],
)
def test_dangling_targets(node: dict[str, Any], field: str) -> None:
    error = one(flow(start(), node, end()), "unknown_target", "work")
    assert error.path == f"nodes[1] (work).{field}"
    assert "`nowhere`" in error.message


def test_unreachable_node() -> None:
    one(flow(start(), work(), work("orphan"), end()), "unreachable", "orphan")


def test_node_that_cannot_reach_an_end() -> None:
    trap = work("trap", nxt="trap")
    route = {
        "id": "work",
        "type": "exclusive",
        "branches": [{"when": "x > 1", "next": "trap"}],
        "default": "finish",
    }
    one(flow(start(), route, trap, end()), "cannot_finish", "trap")


def test_start_cannot_have_incoming_flows() -> None:
    one(flow(start(), work(nxt="begin"), end()), "start_has_incoming", "begin")


def test_exclusive_needs_a_default() -> None:
    route = {"id": "work", "type": "exclusive", "branches": [{"when": "x > 1", "next": "finish"}]}
    one(flow(start(), route, end()), "exclusive_default", "work")


def test_consumes_must_be_produced_on_every_path() -> None:
    route = {
        "id": "route",
        "type": "exclusive",
        "branches": [{"when": "x > 1", "next": "make"}],
        "default": "use",
    }
    make = work("make", nxt="use", produces=["y"])
    use = work("use", consumes=["y"])
    error = one(flow(start("route"), route, make, use, end()), "consumes_not_produced", "use")
    assert error.path == "nodes[3] (use).consumes" and "`y`" in error.message


def test_consumes_inside_a_loop_reaches_a_fixpoint() -> None:
    body = work("body", nxt="again", produces=["y"])
    again = {
        "id": "again",
        "type": "exclusive",
        "branches": [{"when": "y > 3", "next": "body"}],
        "default": "finish",
    }
    uses = {**body, "consumes": ["y"]}
    assert errors_of(flow(start("body"), body, again, end())) == []
    one(flow(start("body"), uses, again, end()), "consumes_not_produced", "body")


def test_keys_from_both_parallel_branches_are_available_after_the_join() -> None:
    doc = flow(
        start("split"),
        {"id": "split", "type": "parallel", "next": ["a", "b"]},
        work("a", nxt="merge", produces=["ya"]),
        work("b", nxt="merge", produces=["yb"]),
        {"id": "merge", "type": "parallel", "next": "use"},
        work("use", consumes=["ya", "yb"]),
        end(),
    )
    assert errors_of(doc) == []


def test_parallel_branches_cannot_write_the_same_key() -> None:
    doc = flow(
        start("split"),
        {"id": "split", "type": "parallel", "next": ["a", "b"]},
        work("a", nxt="merge", produces=["y"]),
        work("b", nxt="merge", produces=["y"]),
        {"id": "merge", "type": "parallel", "next": "finish"},
        end(),
    )
    one(doc, "parallel_write_conflict", "split")


def _fork(*branches: dict[str, Any], extra: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    return flow(
        start("split"),
        {"id": "split", "type": "parallel", "next": [b["id"] for b in branches]},
        *branches,
        {"id": "merge", "type": "parallel", "next": "finish"},
        *extra,
        end(),
    )


def test_balanced_fork_with_an_exclusive_inside_a_branch() -> None:
    route = {
        "id": "b",
        "type": "exclusive",
        "branches": [{"when": "x > 1", "next": "b2"}],
        "default": "merge",
    }
    assert errors_of(_fork(work("a", nxt="merge"), route, extra=(work("b2", nxt="merge"),))) == []


def test_fork_branch_ending_at_a_completed_end_strands_the_join() -> None:
    errors = errors_of(_fork(work("a", nxt="merge"), work("b", nxt="finish")))
    assert any(
        e.code == "parallel_unbalanced" and e.path == "nodes[1] (split)" and "`finish`" in e.message
        for e in errors
    )


def test_fork_branch_may_end_the_instance_with_a_rejection() -> None:
    doc = _fork(
        work("a", nxt="merge"),
        task("b", {"ok": "merge", "no": "nope"}),
        extra=(end("nope", "rejected"),),
    )
    assert errors_of(doc) == []


def test_fork_branches_must_not_share_nodes() -> None:
    doc = _fork(
        work("a", nxt="shared"), work("b", nxt="shared"), extra=(work("shared", nxt="merge"),)
    )
    assert any(
        e.code == "parallel_unbalanced"
        and "share node `shared`" in e.message
        and "`split`" in e.message
        for e in errors_of(doc)
    )


def test_fork_branches_must_meet_at_one_join() -> None:
    doc = flow(
        start("split"),
        {"id": "split", "type": "parallel", "next": ["a", "b"]},
        work("a", nxt="j1"),
        work("b", nxt="j2"),
        {"id": "j1", "type": "parallel", "next": "finish"},
        {"id": "j2", "type": "parallel", "next": "finish"},
        end(),
    )
    errors = [e for e in errors_of(doc) if e.code in {"parallel_unbalanced", "parallel_shape"}]
    assert any("reach different joins" in e.message and "(split)" in e.path for e in errors)


def test_branch_looping_back_to_its_fork() -> None:
    route = {
        "id": "b",
        "type": "exclusive",
        "branches": [{"when": "x > 1", "next": "split"}],
        "default": "merge",
    }
    doc = _fork(work("a", nxt="merge"), route)
    assert any(
        e.code == "parallel_unbalanced" and "back to the fork" in e.message for e in errors_of(doc)
    )


def test_join_entered_from_outside_the_fork() -> None:
    route = {
        "id": "route",
        "type": "exclusive",
        "branches": [{"when": "x > 1", "next": "merge"}],
        "default": "split",
    }
    doc = flow(
        start("route"),
        route,
        {"id": "split", "type": "parallel", "next": ["a", "b"]},
        work("a", nxt="merge"),
        work("b", nxt="merge"),
        {"id": "merge", "type": "parallel", "next": "finish"},
        end(),
    )
    messages = [e.message for e in errors_of(doc) if e.code == "parallel_unbalanced"]
    assert any("`merge`" in m and "`route`" in m for m in messages)


def test_parallel_gateway_that_neither_forks_nor_joins() -> None:
    gate = {"id": "work", "type": "parallel", "next": "finish"}
    one(flow(start(), gate, end()), "parallel_shape", "work")


def test_side_path_of_a_non_interrupting_timer_cannot_reach_the_join() -> None:
    timers = [{"id": "nudge", "duration": "PT1H", "interrupting": False, "next": "merge"}]
    doc = _fork(work("a", nxt="merge"), task("b", {"ok": "merge", "no": "merge"}, timers=timers))
    error = one(doc, "side_path_unbalanced", "b")
    assert "`merge`" in error.message


def test_gateways_looping_without_work_in_between() -> None:
    a = {
        "id": "work",
        "type": "exclusive",
        "branches": [{"when": "x > 1", "next": "loop"}],
        "default": "finish",
    }
    b = {
        "id": "loop",
        "type": "exclusive",
        "branches": [{"when": "x > 2", "next": "work"}],
        "default": "finish",
    }
    error = one(flow(start(), a, b, end()), "inline_cycle", "work")
    assert "`loop`" in error.message


def test_a_loop_may_go_around_a_whole_fork_and_join_block() -> None:
    again = {
        "id": "again",
        "type": "exclusive",
        "branches": [{"when": "ya > 3", "next": "split"}],
        "default": "finish",
    }
    doc = flow(
        start("split"),
        {"id": "split", "type": "parallel", "next": ["a", "b"]},
        work("a", nxt="merge", produces=["ya"]),
        work("b", nxt="merge", produces=["yb"]),
        {"id": "merge", "type": "parallel", "next": "again"},
        again,
        end(),
    )
    assert errors_of(doc) == []


def test_nested_forks_pair_with_their_own_joins() -> None:
    doc = flow(
        start("outer"),
        {"id": "outer", "type": "parallel", "next": ["inner", "c"]},
        {"id": "inner", "type": "parallel", "next": ["a", "b"]},
        work("a", nxt="inner_join", produces=["ya"]),
        work("b", nxt="inner_join", produces=["yb"]),
        {"id": "inner_join", "type": "parallel", "next": "after"},
        work("after", nxt="outer_join", consumes=["ya", "yb"]),
        work("c", nxt="outer_join", produces=["yc"]),
        {"id": "outer_join", "type": "parallel", "next": "finish"},
        end(),
    )
    assert errors_of(doc) == []
