"""The call activity in the pure kernel (issue #24 item 3): entering asks for a child with the
``in`` mapping, the child's completion copies ``out`` and moves on, a child that did not
complete takes the ``child_failed`` error route (or fails the instance), and the definition
check wants ``out`` keys declared in ``produces``."""

from __future__ import annotations

from typing import Any

import pytest
from wfdrive import Driver
from wfkit import compile_doc

from contracts.errors import DefinitionInvalid, InvalidTransition
from services.workflow.runtime.kernel.effects import StartChild
from services.workflow.runtime.kernel.events import ChildEnded


def _doc(**call: Any) -> dict[str, Any]:
    """begin(amount, name) → sub (calls child.flow) → after → finish; ``problem`` → oops."""
    node = {
        "id": "sub",
        "type": "call",
        "definition": "child.flow",
        "version": 1,
        "in": {"value": "amount * 2", "who": "name"},
        "out": {"verdict": "result"},
        "produces": ["verdict"],
        "next": "after",
        **call,
    }
    return {
        "format": 1,
        "key": "test.flow",
        "name": "Call",
        "protocol_prefix": "CL",
        "nodes": [
            {"id": "begin", "type": "start", "produces": ["amount", "name"], "next": "sub"},
            node,
            {
                "id": "after",
                "type": "service_task",
                "handler": "work.do",
                "consumes": ["verdict"],
                "next": "finish",
            },
            {"id": "oops", "type": "service_task", "handler": "work.do", "next": "finish"},
            {"id": "finish", "type": "end"},
        ],
    }


def _ended(d: Driver, status: str, **output: Any) -> ChildEnded:
    t = d.token("sub")
    return ChildEnded(
        at=d.now,
        token_id=t.id,
        node_id="sub",
        attempt_group=t.attempt_group,
        child_id="c1",
        status=status,
        output=output,
    )


def test_entering_a_call_asks_for_the_child_with_the_in_mapping_and_waits() -> None:
    d = Driver(compile_doc(_doc(errors=[{"code": "child_failed", "next": "oops"}])))
    d.start(amount=21, name="Ana")
    (start,) = [e for e in d.effects if isinstance(e, StartChild)]
    assert (start.definition, start.version, start.input) == (
        "child.flow",
        1,
        {"value": 42, "who": "Ana"},
    )
    assert d.token("sub").status == "waiting"


def test_the_child_completing_copies_out_and_moves_on() -> None:
    d = Driver(compile_doc(_doc(errors=[{"code": "child_failed", "next": "oops"}])))
    d.start(amount=1, name="Ana")
    d.apply(_ended(d, "completed", result="granted"))
    assert d.state.context["verdict"] == "granted"
    assert d.token("after").status == "active"
    assert d.replayed() == d.state
    with pytest.raises(InvalidTransition):  # a second delivery finds no waiting token
        d.apply(
            ChildEnded(
                at=d.now,
                token_id="t",
                node_id="sub",
                attempt_group=1,
                child_id="c1",
                status="completed",
            )
        )


def test_a_child_that_did_not_complete_takes_the_child_failed_route() -> None:
    route = {"code": "child_failed", "next": "oops", "store": "why"}
    d = Driver(compile_doc(_doc(errors=[route])))
    d.start(amount=1, name="Ana")
    d.apply(_ended(d, "cancelled"))
    assert d.token("oops").status == "active"
    assert d.state.context["why"] == {"code": "child_failed", "details": {"status": "cancelled"}}


def test_without_a_route_a_failed_child_fails_the_caller() -> None:
    d = Driver(compile_doc(_doc(errors=[{"code": "other_error", "next": "oops"}])))
    d.start(amount=1, name="Ana")
    d.apply(_ended(d, "failed"))
    assert d.state.status == "failed"
    assert d.state.failure is not None
    assert (d.state.failure.reason_code, d.state.failure.node_id) == ("child_failed", "sub")


def test_an_out_key_not_in_produces_is_refused_at_publish() -> None:
    with pytest.raises(DefinitionInvalid) as info:
        compile_doc(_doc(produces=[], errors=[{"code": "*", "next": "oops"}]))
    assert "call_out_not_produced" in {e.code for e in info.value.errors}
