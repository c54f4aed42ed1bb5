"""The event-based gateway in the pure kernel (issue #24 item 3): the token waits for a message
and a timer at once; the first to happen continues, the other wait is cancelled in the same
decision, and a late message or timer for the losing branch is refused."""

from __future__ import annotations

from typing import Any

import pytest
from wfdrive import Driver
from wfkit import compile_doc

from contracts.errors import DefinitionInvalid, InvalidTransition
from services.workflow.runtime.kernel.effects import CancelTimers, CloseTasks, StartTimer
from services.workflow.runtime.kernel.events import Signalled, TimerFired


def _doc(*, around: bool = False, **gateway: Any) -> dict[str, Any]:
    """begin → race {reply (a message), wait (P10D)} → answered | lapsed → finish.
    ``around``: the race is one branch of a parallel fork whose other branch is step ``p``."""
    nodes: list[dict[str, Any]] = [
        {"id": "begin", "type": "start", "next": "par" if around else "race"},
        {"id": "race", "type": "event_gateway", "next": ["reply", "wait"], **gateway},
        {
            "id": "reply",
            "name": "Resposta do requerente",
            "type": "user_task",
            "queue": "people",
            "produces": ["doc"],
            "next": "answered",
        },
        {"id": "wait", "type": "timer", "duration": "P10D", "next": "lapsed"},
        {"id": "answered", "type": "service_task", "handler": "work.do", "next": "merge"},
        {"id": "lapsed", "type": "service_task", "handler": "work.do", "next": "merge"},
        {
            "id": "merge",
            "type": "exclusive",
            "branches": [{"when": "true", "next": "pjoin"}],
            "default": "pjoin",
        },
        {"id": "finish", "type": "end"},
    ]
    if around:
        nodes += [
            {"id": "par", "type": "parallel", "next": ["race", "p"]},
            {"id": "p", "type": "service_task", "handler": "work.do", "next": "pjoin"},
            {"id": "pjoin", "type": "parallel", "next": "finish"},
        ]
    else:
        nodes[6] = {**nodes[6], "branches": [{"when": "true", "next": "finish"}]}
        nodes[6]["default"] = "finish"
    return {
        "format": 1,
        "key": "test.flow",
        "name": "Race",
        "protocol_prefix": "RC",
        "nodes": nodes,
    }


def _at(d: Driver) -> dict[str, str]:
    return {t.id: t.node_id for t in d.state.tokens}


def _refused(d: Driver, event: Any) -> str:
    with pytest.raises(InvalidTransition) as info:
        d.apply(event)
    return str(info.value.fields["code"])


def test_the_gateway_waits_for_the_message_and_the_timer_at_once() -> None:
    d = Driver(compile_doc(_doc()))
    d.start()
    assert _at(d) == {"t.0": "reply", "t.1": "wait"}
    assert d.state.status == "waiting"
    assert [e.timer_id for e in d.effects if isinstance(e, StartTimer)] == ["wait"]


def test_the_message_wins_and_the_timer_is_cancelled_in_the_same_decision() -> None:
    d = Driver(compile_doc(_doc()))
    d.start()
    timer = d.token("wait")
    decision = d.apply(Signalled(at=d.now, name="reply", payload={"doc": "D-1"}))
    assert _at(d) == {"t": "answered"}
    assert d.state.timers == () and d.state.context["doc"] == "D-1"
    cancelled = [e for e in decision.effects if isinstance(e, CancelTimers)]
    assert [(e.token_id, e.timer_ids) for e in cancelled] == [("t.1", ("wait",))]
    late = TimerFired(at=d.now, token_id=timer.id, node_id="wait", attempt_group=1, timer_id="wait")
    assert _refused(d, late) == "unknown_token"
    d.succeed("answered")
    assert d.state.status == "completed"
    assert d.replayed() == d.state


def test_the_timer_wins_and_a_late_message_is_refused_like_an_unknown_one() -> None:
    d = Driver(compile_doc(_doc()))
    d.start()
    d.later(days=10)
    decision = d.fire("wait")
    assert _at(d) == {"t": "lapsed"}
    closed = [e for e in decision.effects if isinstance(e, CloseTasks)]
    assert [(e.token_id, e.node_id, e.reason) for e in closed] == [("t.0", "reply", "race_lost")]
    late = _refused(d, Signalled(at=d.now, name="reply", payload={"doc": "D-1"}))
    unknown = _refused(d, Signalled(at=d.now, name="nobody"))
    assert late == unknown == "no_receiver"
    d.succeed("lapsed")
    assert d.state.status == "completed" and "doc" not in d.state.context
    assert d.replayed() == d.state


def test_inside_a_parallel_branch_the_winner_reaches_the_join_as_the_forked_token() -> None:
    d = Driver(compile_doc(_doc(around=True)))
    d.start()
    assert _at(d) == {"t.0.0": "reply", "t.0.1": "wait", "t.1": "p"}
    d.apply(Signalled(at=d.now, name="reply"))
    assert _at(d) == {"t.0": "answered", "t.1": "p"}
    d.succeed("answered")
    d.succeed("p")
    assert d.state.status == "completed"
    assert d.replayed() == d.state


def _codes(doc: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(DefinitionInvalid) as info:
        compile_doc(doc)
    return [(e.code, e.message) for e in info.value.errors if e.code.startswith("event_gateway")]


def test_a_way_out_that_is_not_an_event_is_refused_naming_the_gateway() -> None:
    doc = _doc()
    doc["nodes"][1]["next"] = ["reply", "answered"]
    doc["nodes"] = [n for n in doc["nodes"] if n["id"] != "wait"]
    codes = _codes(doc)
    assert len(codes) == 1 and "`race`" in codes[0][1] and "`answered`" in codes[0][1]


def test_an_event_reached_from_elsewhere_or_with_its_own_timers_is_refused() -> None:
    doc = _doc()
    doc["nodes"][0]["next"] = "par"
    doc["nodes"] += [
        {
            "id": "par",
            "type": "exclusive",
            "branches": [{"when": "true", "next": "race"}],
            "default": "wait",
        }
    ]
    doc["nodes"][2]["timers"] = [
        {"id": "late", "duration": "P1D", "interrupting": True, "next": "lapsed"}
    ]
    messages = " ".join(m for _, m in _codes(doc))
    assert "`wait`" in messages and "`reply`" in messages


def test_a_single_way_out_is_refused() -> None:
    doc = _doc()
    doc["nodes"][1]["next"] = ["reply"]
    with pytest.raises(DefinitionInvalid):
        compile_doc(doc)
