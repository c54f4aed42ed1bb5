"""A business error travels outward through nested scopes in the pure kernel (issue #24): each
child starts knowing the codes its enclosing scopes catch, a step's error no route inside takes
fails its instance with that code only when a scope around will take it, each level that does
not take it fails in turn with the same code, and the nearest scope that catches it routes it.

Levels: ``outer`` (this definition) → sub-process ``s1`` → sub-process ``s2`` → service task
``check``; or ``outer`` → call ``c`` → (a called definition) → its sub-process → ``check``.
"""

from __future__ import annotations

from typing import Any

from wfdrive import Driver
from wfkit import compile_doc

from services.workflow.definition import CompiledModel
from services.workflow.runtime.kernel.effects import StartChild
from services.workflow.runtime.kernel.events import ChildEnded, Started, StepErrored

FAIL = {"on_validation_error": "fail"}
OUTER_OTHER = [{"code": "other", "next": "outer_fix"}]
"""A route for a code nobody raises: the scope catches nothing the tests raise."""
MID_OTHER = [{"code": "other", "next": "mid_fix"}]


def _inner(s2_errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """s1's nodes: a sub-process s2 (holding the failing ``check``) and its error target."""
    s2 = [
        {"id": "b2", "type": "start", "next": "check"},
        {"id": "check", "type": "service_task", "handler": "work.do", "failure": FAIL}
        | {"next": "e2"},
        {"id": "e2", "type": "end"},
    ]
    return [
        {"id": "b1", "type": "start", "next": "s2"},
        {"id": "s2", "type": "subprocess", "nodes": s2, "errors": s2_errors, "next": "e1"},
        {"id": "mid_fix", "type": "service_task", "handler": "work.do", "next": "e1"},
        {"id": "e1", "type": "end"},
    ]


def _outer(s1_errors: list[dict[str, Any]], s2_errors: list[dict[str, Any]]) -> CompiledModel:
    return compile_doc(
        {
            "format": 1,
            "key": "test.flow",
            "name": "Nested",
            "protocol_prefix": "NS",
            "nodes": [
                {"id": "begin", "type": "start", "next": "s1"},
                {"id": "s1", "type": "subprocess", "nodes": _inner(s2_errors)}
                | {"errors": s1_errors, "next": "finish"},
                {"id": "outer_fix", "type": "service_task", "handler": "work.do"}
                | {"next": "finish"},
                {"id": "finish", "type": "end"},
            ],
        }
    )


def _child(parent: Driver, model: CompiledModel) -> Driver:
    """The child the parent's last ``StartChild`` asked for, started as the engine would."""
    start = [e for e in parent.effects if isinstance(e, StartChild)][-1]
    child = Driver(model, parent.now)
    child.apply(Started(at=child.now, input=dict(start.input), catches=start.catches))
    return child


def _raise(d: Driver, code: str) -> None:
    t = d.token("check")
    d.apply(
        StepErrored(
            at=d.now, token_id=t.id, node_id="check", attempt_group=t.attempt_group, code=code
        )
    )


def _report(parent: Driver, node_id: str, child: Driver) -> None:
    """The child's end as ``Calls.returned`` builds it."""
    failure = child.state.failure
    t = parent.token(node_id)
    parent.apply(
        ChildEnded(
            at=parent.now,
            token_id=t.id,
            node_id=node_id,
            attempt_group=t.attempt_group,
            child_id="c",
            status=child.state.status,
            error=failure.cause if failure and failure.reason_code == "business_error" else None,
        )
    )


def _levels(model: CompiledModel) -> tuple[Driver, Driver, Driver]:
    outer = Driver(model)
    outer.start()
    s1 = _child(outer, model.scopes["s1"])
    s2 = _child(s1, model.scopes["s1"].scopes["s2"])
    return outer, s1, s2


def test_each_child_starts_knowing_what_its_enclosing_scopes_catch() -> None:
    late = [{"code": "late", "next": "mid_fix"}]
    model = _outer([{"code": "refused", "next": "outer_fix"}], late)
    _, s1, s2 = _levels(model)
    assert s1.state.catches == ("refused",)
    assert s2.state.catches == ("late", "refused")
    assert s2.replayed() == s2.state


def test_an_error_caught_two_levels_up_fails_each_level_with_its_code() -> None:
    caught = [{"code": "refused", "next": "outer_fix", "store": "why"}]
    outer, s1, s2 = _levels(_outer(caught, MID_OTHER))
    _raise(s2, "refused")
    assert s2.state.status == "failed"
    assert s2.state.failure is not None and s2.state.failure.cause == "refused"
    _report(s1, "s2", s2)
    assert s1.state.failure is not None
    assert (s1.state.status, s1.state.failure.reason_code, s1.state.failure.node_id) == (
        "failed",
        "business_error",
        "s2",
    )
    _report(outer, "s1", s1)
    assert outer.token("outer_fix").status == "active"
    assert outer.state.context["why"] == {"code": "refused", "details": {"status": "failed"}}


def test_a_catch_all_two_levels_up_takes_any_code() -> None:
    outer, s1, s2 = _levels(_outer([{"code": "*", "next": "outer_fix", "store": "why"}], MID_OTHER))
    _raise(s2, "anything")
    _report(s1, "s2", s2)
    _report(outer, "s1", s1)
    assert outer.token("outer_fix").status == "active"
    assert outer.state.context["why"]["code"] == "anything"


def test_the_middle_scope_that_catches_the_code_keeps_it_from_the_outer_one() -> None:
    model = _outer(
        [{"code": "refused", "next": "outer_fix"}], [{"code": "refused", "next": "mid_fix"}]
    )
    outer, s1, s2 = _levels(model)
    _raise(s2, "refused")
    _report(s1, "s2", s2)
    assert (s1.state.status, s1.token("mid_fix").status) == ("running", "active")
    assert outer.token("s1").status == "waiting"


def test_an_error_no_scope_catches_stays_with_the_step_and_the_levels_fail_as_children() -> None:
    outer, s1, s2 = _levels(_outer(OUTER_OTHER, MID_OTHER))
    _raise(s2, "refused")
    assert s2.state.failure is not None
    assert (s2.state.failure.reason_code, s2.state.failure.cause) == ("business_error", None)
    _report(s1, "s2", s2)
    _report(outer, "s1", s1)
    assert outer.state.failure is not None
    assert (outer.state.status, outer.state.failure.reason_code) == ("failed", "child_failed")


def test_a_call_passes_its_catches_to_the_called_definition() -> None:
    caller = compile_doc(
        {
            "format": 1,
            "key": "test.flow",
            "name": "Caller",
            "protocol_prefix": "CL",
            "nodes": [
                {"id": "begin", "type": "start", "next": "c"},
                {"id": "c", "type": "call", "definition": "child.flow", "next": "finish"}
                | {"errors": [{"code": "refused", "next": "outer_fix"}]},
                {"id": "outer_fix", "type": "service_task", "handler": "work.do"}
                | {"next": "finish"},
                {"id": "finish", "type": "end"},
            ],
        }
    )
    called = _outer(OUTER_OTHER, MID_OTHER)  # its s1 and s2 catch nothing raised
    outer = Driver(caller)
    outer.start()
    top = _child(outer, called)
    assert top.state.catches == ("refused",)
    s1 = _child(top, called.scopes["s1"])
    s2 = _child(s1, called.scopes["s1"].scopes["s2"])
    _raise(s2, "refused")
    _report(s1, "s2", s2)
    _report(top, "s1", s1)
    assert top.state.failure is not None and top.state.failure.cause == "refused"
    _report(outer, "c", top)
    assert outer.token("outer_fix").status == "active"
