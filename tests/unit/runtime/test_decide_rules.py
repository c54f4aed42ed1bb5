"""``decide`` behaviours beyond the purchase flow: refusals, loops, parallel, quorum, timers."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from wfdrive import T0, Driver
from wfkit import compile_doc, compiled_example

from contracts.errors import Forbidden, InvalidTransition, ValidationFailed
from services.workflow.definition import CompiledModel
from services.workflow.runtime.kernel.effects import (
    CloseTasks,
    EscalateTask,
    InstanceFinished,
    RunCompensation,
    ScheduleStep,
    StartTimer,
    Transitioned,
    VoteRecorded,
)
from services.workflow.runtime.kernel.events import (
    Abandoned,
    Cancelled,
    CompensationDone,
    Reprocessed,
    Signalled,
    StepSucceeded,
    TimerFired,
)
from services.workflow.runtime.kernel.state import initial_state
from services.workflow.runtime.kernel.transitions import decide


def flow(*nodes: dict[str, Any]) -> CompiledModel:
    return compile_doc(
        {
            "format": 1,
            "key": "test.flow",
            "name": "T",
            "protocol_prefix": "TST",
            "nodes": list(nodes),
        }
    )


START = {"id": "begin", "type": "start", "produces": ["x"], "next": "work"}
END = {"id": "finish", "type": "end"}


def work(nid: str = "work", nxt: str = "finish", **extra: Any) -> dict[str, Any]:
    return {"id": nid, "type": "service_task", "handler": "work.do", "next": nxt, **extra}


LOOP = flow(
    START,
    work(produces=["y"], nxt="again"),
    {
        "id": "again",
        "type": "exclusive",
        "branches": [{"when": "y > 0", "next": "work"}],
        "default": "finish",
    },
    END,
)


def refusal(excinfo: pytest.ExceptionInfo[InvalidTransition]) -> str:
    return str(excinfo.value.fields["code"])


def test_events_before_started_are_refused() -> None:
    event = StepSucceeded(at=T0, token_id="t", node_id="work", attempt_group=1)
    with pytest.raises(InvalidTransition) as info:
        decide(LOOP, initial_state(), event, T0)
    assert refusal(info) == "not_started"


def test_started_twice_is_refused() -> None:
    d = Driver(LOOP)
    d.start(x=1)
    with pytest.raises(InvalidTransition) as info:
        d.start(x=1)
    assert refusal(info) == "already_started"


def test_input_must_match_the_start_declaration() -> None:
    d = Driver(LOOP)
    with pytest.raises(ValidationFailed) as info:
        d.start(z=1)
    assert sorted(e.path for e in info.value.errors) == ["input.x", "input.z"]


def test_now_must_be_the_event_time() -> None:
    d = Driver(LOOP)
    d.start(x=1)
    event = StepSucceeded(at=T0, token_id="t", node_id="work", attempt_group=1, output={"y": 0})
    with pytest.raises(ValueError, match=r"now == event.at"):
        decide(LOOP, d.state, event, T0 + timedelta(seconds=1))


def test_attempt_group_grows_on_each_entry_and_stale_events_are_refused() -> None:
    d = Driver(LOOP)
    d.start(x=1)
    assert d.token("work").attempt_group == 1
    d.succeed("work", y=1)
    assert d.token("work").attempt_group == 2
    old = StepSucceeded(at=d.now, token_id="t", node_id="work", attempt_group=1, output={"y": 0})
    with pytest.raises(InvalidTransition) as info:
        d.apply(old)
    assert refusal(info) == "stale_attempt"
    d.succeed("work", y=0)
    assert d.state.status == "completed"
    assert d.state.entries["work"] == 2
    with pytest.raises(InvalidTransition) as info:
        d.apply(Cancelled(at=d.now, reason="too_late"))
    assert refusal(info) == "instance_finished"


def test_held_step_is_reprocessed_with_the_same_attempt_group() -> None:
    model = flow(START, work(failure={"on_exhausted": "hold"}), END)
    d = Driver(model)
    d.start(x=1)
    d.fail("work")
    assert d.state.status == "stalled" and d.token("work").status == "held"
    again = d.apply(Reprocessed(at=d.now, token_id="t", node_id="work", attempt_group=1))
    assert again.effects[-1] == ScheduleStep(
        token_id="t", node_id="work", attempt_group=1, queue="integration", handler="work.do"
    )
    d.fail("work")
    d.apply(Abandoned(at=d.now, token_id="t", node_id="work", attempt_group=1))
    assert d.state.status == "failed"
    assert d.state.failure is not None and d.state.failure.reason_code == "abandoned"
    assert d.replayed() == d.state


def test_compensations_run_one_by_one_in_reverse_completion_order() -> None:
    model = flow(
        START,
        work(nxt="second", compensation="work.undo"),
        work("second", nxt="third", compensation="stock.release"),
        work("third", failure={"on_exhausted": "fail"}),
        END,
    )
    d = Driver(model)
    d.start(x=1)
    d.succeed("work")
    d.succeed("second")
    first = d.fail("third")
    assert isinstance(first.effects[-1], RunCompensation)
    assert first.effects[-1].node_id == "second"
    with pytest.raises(InvalidTransition) as info:
        d.apply(CompensationDone(at=d.now, node_id="work", attempt_group=1))
    assert refusal(info) == "unexpected_compensation"
    nxt = d.apply(CompensationDone(at=d.now, node_id="second", attempt_group=1))
    assert nxt.effects == (
        RunCompensation(node_id="work", attempt_group=1, handler="work.undo", queue="integration"),
    )
    d.apply(CompensationDone(at=d.now, node_id="work", attempt_group=1))
    assert d.state.status == "failed"


def test_a_failing_condition_fails_the_instance() -> None:
    model = flow(
        START,
        work(produces=["y"], nxt="route"),
        {
            "id": "route",
            "type": "exclusive",
            "branches": [{"when": "y > 1", "next": "finish"}],
            "default": "finish",
        },
        END,
    )
    d = Driver(model)
    d.start(x=1)
    decision = d.succeed("work", y="not a number")
    assert decision.effects[-1] == InstanceFinished(
        status="failed", reason_code="condition_error", node_id="route"
    )


def test_intermediate_timers_by_duration_business_days_and_until() -> None:
    model = flow(
        {**START, "next": "wait", "produces": ["x", "deadline"]},
        {"id": "wait", "type": "timer", "duration": "P2D", "next": "office"},
        {"id": "office", "type": "timer", "business_days": 3, "next": "until"},
        {"id": "until", "type": "timer", "until": "deadline", "next": "finish"},
        END,
    )
    d = Driver(model)
    started = d.start(x=1, deadline="2026-04-01T09:00:00-03:00")
    timer = started.effects[-1]
    assert isinstance(timer, StartTimer) and timer.due_at == T0 + timedelta(days=2)
    d.later(days=2)
    fired = d.fire("wait")
    office = fired.effects[-1]
    assert isinstance(office, StartTimer)
    assert (office.due_at, office.business_days, office.starts_at) == (None, 3, d.now)
    until = d.fire("office").effects[-1]
    assert isinstance(until, StartTimer) and until.due_at is not None
    assert until.due_at.isoformat() == "2026-04-01T09:00:00-03:00"
    with pytest.raises(InvalidTransition) as info:
        d.apply(
            TimerFired(at=d.now, token_id="t", node_id="office", attempt_group=1, timer_id="office")
        )
    assert refusal(info) == "token_elsewhere"
    d.fire("until")
    assert d.state.status == "completed"


def test_signal_completes_the_waiting_user_task_named_like_it() -> None:
    model = flow(
        {**START, "next": "receipt"},
        {
            "id": "receipt",
            "name": "Receipt",
            "type": "user_task",
            "queue": "people",
            "produces": ["doc"],
            "next": "finish",
        },
        END,
    )
    d = Driver(model)
    d.start(x=1)
    with pytest.raises(InvalidTransition) as info:
        d.apply(Signalled(at=d.now, name="other"))
    assert refusal(info) == "no_receiver"
    d.apply(Signalled(at=d.now, name="receipt", payload={"doc": "D-1"}))
    assert d.state.status == "completed" and d.state.context["doc"] == "D-1"
    with pytest.raises(InvalidTransition) as info:
        d.apply(Signalled(at=d.now, name="receipt"))
    assert refusal(info) == "instance_finished"


def test_cancel_closes_tasks_and_timers() -> None:
    d = Driver(compiled_example("purchase_approval"))
    d.start(value=20000, item="x", quantity=1, requester="r", requester_email="e")
    d.succeed("check")
    decision = d.apply(Cancelled(at=d.now, reason="requester_withdrew", actor="ops"))
    assert [type(e).__name__ for e in decision.effects] == [
        "CloseTasks",
        "CancelTimers",
        "Transitioned",
        "InstanceFinished",
    ]
    assert decision.effects[-1] == InstanceFinished(
        status="cancelled", reason_code="requester_withdrew"
    )
    assert d.state.status == "cancelled" and d.state.compensations == ()


@pytest.fixture(scope="module")
def review() -> CompiledModel:
    return compiled_example("parallel_review")


def test_fork_names_children_after_the_parent_and_join_merges_them_back(
    review: CompiledModel,
) -> None:
    d = Driver(review)
    d.start(supplier_id="S", amount=10)
    assert [t.id for t in d.state.tokens] == ["t.0", "t.1"]
    d.complete("legal_review", "approve", actor="lawyer", legal_note="ok")
    assert d.token("merge").status == "arrived_at_join"
    d.complete("finance_review", "approve", actor="f1", finance_note="ok")
    vote = d.effects[-1]
    assert isinstance(vote, VoteRecorded)
    d.complete("finance_review", "approve", actor="f2", finance_note="ok")
    assert [t.id for t in d.state.tokens] == ["t"]
    assert d.token("sign").status == "active"
    joins = [e for e in d.effects if isinstance(e, Transitioned) and e.cause == "join"]
    assert len(joins) == 1 and joins[0].token_id == "t"
    d.succeed("sign", signature_id="SIG")
    assert d.state.status == "completed"
    assert d.replayed() == d.state


def test_quorum_refuses_a_second_vote_by_the_same_person(review: CompiledModel) -> None:
    d = Driver(review)
    d.start(supplier_id="S", amount=10)
    d.complete("finance_review", "approve", actor="f1")
    with pytest.raises(InvalidTransition) as info:
        d.complete("finance_review", "approve", actor="f1")
    assert refusal(info) == "already_voted"


def test_one_rejection_in_a_branch_ends_the_whole_instance(review: CompiledModel) -> None:
    d = Driver(review)
    d.start(supplier_id="S", amount=10)
    decision = d.complete("finance_review", "reject", actor="f1")
    closed = [e for e in decision.effects if isinstance(e, CloseTasks)]
    assert {(c.token_id, c.reason) for c in closed} == {
        ("t.1", "completed"),
        ("t.0", "instance_finished"),
    }
    assert d.state.status == "rejected" and d.state.tokens == () and d.state.timers == ()


def test_non_interrupting_timers_start_a_side_token_or_escalate(review: CompiledModel) -> None:
    d = Driver(review)
    d.start(supplier_id="S", amount=10)
    d.later(hours=24)
    d.fire("legal_review", "remind")
    side = "t.0.remind@1"
    assert {t.id for t in d.state.tokens} == {"t.0", "t.1", side}
    assert d.token("remind_legal").id == side
    escalated = d.fire("legal_review", "escalate")
    assert escalated.effects == (
        EscalateTask(
            token_id="t.0",
            node_id="legal_review",
            attempt_group=1,
            timer_id="escalate",
            queue="contracts.directors",
        ),
    )
    d.succeed("remind_legal")
    assert {t.id for t in d.state.tokens} == {"t.0", "t.1"}
    assert d.state.status == "waiting"
    with pytest.raises(InvalidTransition) as info:
        d.fire("legal_review", "remind")
    assert refusal(info) == "unknown_timer"


def test_a_completer_of_an_earlier_task_cannot_complete_the_next() -> None:
    model = flow(
        {**START, "next": "first"},
        {"id": "first", "name": "First", "type": "user_task", "queue": "people", "next": "second"},
        {
            "id": "second",
            "name": "Second",
            "type": "approval",
            "queue": "bosses",
            "policy": {"exclude_completers_of": ["first"]},
            "outcomes": {"approve": "finish", "reject": "finish"},
        },
        END,
    )
    d = Driver(model)
    d.start(x=1)
    d.complete("first", actor="ana")
    with pytest.raises(Forbidden) as info:
        d.complete("second", "approve", actor="ana")
    assert info.value.fields["rule"] == "exclude_completers_of"
    d.complete("second", "approve", actor="bia")
    assert d.state.status == "completed"


def test_quorum_votes_need_an_actor(review: CompiledModel) -> None:
    d = Driver(review)
    d.start(supplier_id="S", amount=10)
    with pytest.raises(InvalidTransition) as info:
        d.complete("finance_review", "approve", actor=None)
    assert refusal(info) == "vote_needs_actor"


def test_decision_tables_run_on_the_validation_queue() -> None:
    table = {
        "hit_policy": "first",
        "inputs": [{"expr": "x"}],
        "outputs": ["tier"],
        "rules": [{"when": ["> 10"], "then": {"tier": "high"}}],
        "default": {"tier": "low"},
    }
    model = flow(
        START,
        {
            "id": "work",
            "type": "decision_table",
            "table": table,
            "produces": ["tier"],
            "next": "finish",
        },
        END,
    )
    d = Driver(model)
    started = d.start(x=11)
    assert started.effects[-1] == ScheduleStep(
        token_id="t", node_id="work", attempt_group=1, queue="validation", handler=None, fresh=True
    )
    assert model.tables["work"]({"x": 11}) == {"tier": "high"}
    d.succeed("work", tier="high")
    assert d.state.context == {"x": 11, "tier": "high"}


def test_an_until_timer_that_gives_no_timestamp_fails_the_instance() -> None:
    model = flow(
        {**START, "next": "wait", "produces": ["x", "deadline"]},
        {"id": "wait", "type": "timer", "until": "deadline", "next": "finish"},
        END,
    )
    d = Driver(model)
    started = d.start(x=1, deadline="next tuesday")
    assert started.effects[-1] == InstanceFinished(
        status="failed", reason_code="timer_error", node_id="wait"
    )
