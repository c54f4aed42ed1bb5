"""``decide`` on a business error: the node's route for the code (else its ``*`` route) is
taken and the error stored under the route's key; without a route it is a rejection; a second
delivery of the same result is refused."""

from __future__ import annotations

from typing import Any

import pytest
from wfdrive import Driver
from wfkit import compile_doc

from contracts.errors import BusinessError, InvalidTransition
from services.workflow.definition import CompiledModel
from services.workflow.runtime.kernel.effects import OpenTask, Transitioned
from services.workflow.runtime.kernel.events import StepErrored
from services.workflow.runtime.kernel.transitions import replay


def model(*routes: dict[str, Any], compensation: str | None = None) -> CompiledModel:
    work: dict[str, Any] = {
        "id": "charge",
        "type": "service_task",
        "handler": "work.do",
        "next": "done",
        "errors": list(routes),
    }
    first: dict[str, Any] = {"id": "reserve", "type": "service_task", "handler": "work.do"}
    if compensation:
        first["compensation"] = compensation
    return compile_doc(
        {
            "format": 1,
            "key": "test.flow",
            "name": "T",
            "protocol_prefix": "TST",
            "nodes": [
                {"id": "begin", "type": "start", "produces": ["x"], "next": "reserve"},
                {**first, "next": "charge"},
                work,
                *(
                    {
                        "id": t,
                        "name": "Ver",
                        "type": "manual_task",
                        "queue": "people",
                        "next": "done",
                    }
                    for t in sorted({r["next"] for r in routes})
                ),
                {"id": "done", "type": "end"},
            ],
        }
    )


def errored(d: Driver, code: str, **details: Any) -> StepErrored:
    token = d.token("charge")
    return StepErrored(
        at=d.now,
        token_id=token.id,
        node_id="charge",
        attempt_group=token.attempt_group,
        code=code,
        details=details,
    )


def at_charge(m: CompiledModel) -> Driver:
    d = Driver(m)
    d.start(x=1)
    d.succeed("reserve")
    return d


def test_a_matching_code_takes_its_route_and_stores_the_error() -> None:
    m = model({"code": "payment_refused", "next": "refused", "store": "refusal"})
    d = at_charge(m)
    decision = d.apply(errored(d, "payment_refused", reason="insufficient_funds"))
    assert d.token("refused").status == "waiting"
    assert d.state.context["refusal"] == {
        "code": "payment_refused",
        "details": {"reason": "insufficient_funds"},
    }
    moves = [e for e in decision.effects if isinstance(e, Transitioned)]
    assert (moves[0].from_node, moves[0].to_node, moves[0].cause) == (
        "charge",
        "refused",
        "error:payment_refused",
    )
    assert replay(m, d.log) == d.state


def test_the_catch_all_takes_codes_without_a_route_of_their_own() -> None:
    m = model(
        {"code": "payment_refused", "next": "refused"},
        {"code": "*", "next": "other", "store": "problem"},
    )
    d = at_charge(m)
    d.apply(errored(d, "card_expired"))
    assert d.token("other").status == "waiting"
    assert d.state.context["problem"] == {"code": "card_expired", "details": {}}
    assert "refusal" not in d.state.context


def test_a_code_without_a_route_opens_a_pending_task_as_a_rejection() -> None:
    m = model({"code": "payment_refused", "next": "refused"})
    d = at_charge(m)
    decision = d.apply(errored(d, "card_expired"))
    assert d.token("charge").status == "pending"
    (task,) = [e for e in decision.effects if isinstance(e, OpenTask)]
    assert (task.node_id, task.kind) == ("charge", "pending")


def test_a_redelivered_business_error_is_refused_once_the_token_moved() -> None:
    m = model({"code": "payment_refused", "next": "refused"})
    d = at_charge(m)
    event = errored(d, "payment_refused")
    d.apply(event)
    with pytest.raises(InvalidTransition) as refused:
        d.apply(event)
    assert refused.value.fields["code"] == "token_elsewhere"


def test_the_errored_step_is_not_compensated_but_earlier_steps_are() -> None:
    m = model({"code": "payment_refused", "next": "refused"}, compensation="work.undo")
    d = at_charge(m)
    d.apply(errored(d, "payment_refused"))
    assert [c.node_id for c in d.state.completed_nodes] == ["reserve"]


def test_a_business_error_keeps_only_identifiers_and_numbers_in_its_details() -> None:
    exc = BusinessError(
        "payment_refused", details={"reason": "insufficient_funds", "cents": 1200, "x": "y" * 65}
    )
    assert exc.details == {"reason": "insufficient_funds", "cents": 1200}
    with pytest.raises(ValueError):
        BusinessError("Payment refused for Maria")
