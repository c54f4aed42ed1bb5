"""A compensation end in the kernel: reaching it drops the other tokens, runs the completed
nodes' compensations one at a time, most recent first, then ends with the end's result."""

from __future__ import annotations

from typing import Any

from wfdrive import Driver
from wfkit import compile_doc

from services.workflow.definition import CompiledModel
from services.workflow.runtime.kernel.effects import InstanceFinished, RunCompensation
from services.workflow.runtime.kernel.events import Cancelled, CompensationDone


def flow(end: dict[str, Any]) -> CompiledModel:
    def work(nid: str, nxt: str, **extra: Any) -> dict[str, Any]:
        return {"id": nid, "type": "service_task", "handler": "work.do", "next": nxt, **extra}

    return compile_doc(
        {
            "format": 1,
            "key": "test.flow",
            "name": "T",
            "protocol_prefix": "TST",
            "nodes": [
                {"id": "begin", "type": "start", "produces": ["x"], "next": "reserve"},
                work("reserve", "log", compensation="stock.release"),
                work("log", "charge"),  # nothing to undo
                work("charge", "undo", compensation="work.undo"),
                {"id": "undo", "type": "end", "compensate": True, **end},
            ],
        }
    )


def test_a_compensation_end_compensates_in_reverse_order_then_ends_with_its_result() -> None:
    d = Driver(flow({"result": "rejected"}))
    d.start(x=1)
    for node in ("reserve", "log"):
        d.succeed(node)
    reached = d.succeed("charge")
    assert reached.effects[-1] == RunCompensation(
        node_id="charge", attempt_group=1, handler="work.undo", queue="integration"
    )
    assert (d.state.status, d.state.tokens) == ("compensating", ())
    nxt = d.apply(CompensationDone(at=d.now, node_id="charge", attempt_group=1))
    assert nxt.effects == (
        RunCompensation(
            node_id="reserve", attempt_group=1, handler="stock.release", queue="integration"
        ),
    )
    last = d.apply(CompensationDone(at=d.now, node_id="reserve", attempt_group=1))
    assert last.effects == (
        InstanceFinished(status="rejected", reason_code="compensated", node_id="undo"),
    )
    assert (d.state.status, d.state.compensations, d.state.failure) == ("rejected", (), None)


def test_a_cancellation_asking_for_compensation_compensates_then_cancels() -> None:
    d = Driver(flow({}))
    d.start(x=1)
    d.succeed("reserve")
    d.succeed("log")
    asked = d.apply(Cancelled(at=d.now, reason="cancelled", actor="op", compensate=True))
    assert asked.effects[-1] == RunCompensation(
        node_id="reserve", attempt_group=1, handler="stock.release", queue="integration"
    )
    assert (d.state.status, d.state.tokens) == ("compensating", ())
    done = d.apply(CompensationDone(at=d.now, node_id="reserve", attempt_group=1))
    assert done.effects == (
        InstanceFinished(status="cancelled", reason_code="compensated", node_id=None),
    )
