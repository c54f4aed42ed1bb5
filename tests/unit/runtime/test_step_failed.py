"""``decide`` on a failed attempt: a retry with its backoff below the ceiling, a dead letter at
it (with the terminal failure the log keeps), nothing logged for a retry."""

from __future__ import annotations

from typing import Any

import msgspec
from wfdrive import T0, Driver
from wfkit import compile_doc

from services.workflow.definition import CompiledModel
from services.workflow.runtime.kernel.effects import (
    DeadLetter,
    InstanceFinished,
    ScheduleStep,
    Transitioned,
)
from services.workflow.runtime.kernel.events import Cancelled, StepFailed, StepFailedTerminal
from services.workflow.runtime.kernel.naming import backoff
from services.workflow.runtime.kernel.transitions import decide

POLICY = {"max_attempts": 3, "backoff_base_s": 2.0, "backoff_cap_s": 60.0}


def model(**failure: Any) -> CompiledModel:
    return compile_doc(
        {
            "format": 1,
            "key": "test.flow",
            "name": "T",
            "protocol_prefix": "TST",
            "nodes": [
                {"id": "begin", "type": "start", "produces": ["x"], "next": "work"},
                {
                    "id": "work",
                    "type": "service_task",
                    "handler": "work.do",
                    "next": "finish",
                    "failure": {**POLICY, **failure},
                },
                {"id": "finish", "type": "end"},
            ],
        }
    )


def failed(d: Driver, *, attempt: int, used: int | None = None, **extra: Any) -> StepFailed:
    token = d.token("work")
    return StepFailed(
        at=d.now,
        token_id=token.id,
        node_id="work",
        attempt_group=token.attempt_group,
        step_run_id="run-1",
        queue="default",
        attempt=attempt,
        used=attempt if used is None else used,
        idempotency_key=f"i:work:{token.attempt_group}",
        error={"type": "HandlerFailure", "code": "timeout"},
        payload={"x": 1},
        **extra,
    )


def test_a_retry_below_the_ceiling_schedules_the_next_attempt_after_its_backoff() -> None:
    m = model()
    d = Driver(m)
    d.start(x=1)
    event = failed(d, attempt=2)
    decision = decide(m, d.state, event, event.at)
    assert decision.unchanged and decision.logged is None
    assert decision.new_state == d.state  # nothing changes on the instance, not even its version
    (retry,) = decision.effects
    assert isinstance(retry, ScheduleStep)
    assert (retry.node_id, retry.kind, retry.attempt, retry.queue) == ("work", "step", 3, "default")
    policy = m.nodes["work"].failure
    assert retry.available_at == T0 + backoff(policy, 2, event.idempotency_key)
    assert not retry.fresh


def test_the_budget_counts_used_attempts_not_attempt_numbers() -> None:
    m = model()
    d = Driver(m)
    d.start(x=1)
    event = failed(d, attempt=7, used=1)  # an operator's reprocess started a fresh budget
    (retry,) = decide(m, d.state, event, event.at).effects
    assert isinstance(retry, ScheduleStep) and retry.attempt == 8


def test_at_the_ceiling_a_dead_letter_and_the_terminal_failure_the_log_keeps() -> None:
    m = model(on_exhausted="fail")
    d = Driver(m)
    d.start(x=1)
    event = failed(d, attempt=3)
    decision = decide(m, d.state, event, event.at)
    assert not decision.unchanged
    letter = decision.effects[0]
    assert letter == DeadLetter(
        step_run_id="run-1",
        token_id=event.token_id,
        node_id="work",
        kind="step",
        attempt_group=event.attempt_group,
        attempts=3,
        reason="retry_ceiling",
        last_error={"type": "HandlerFailure", "code": "timeout"},
        payload={"x": 1},
    )
    assert isinstance(decision.logged, StepFailedTerminal)
    assert (decision.logged.reason_code, decision.logged.kind) == ("timeout", "exhausted")
    terminal = decide(m, d.state, decision.logged, event.at)
    assert decision.new_state == terminal.new_state
    assert decision.effects[1:] == terminal.effects
    assert any(isinstance(e, InstanceFinished) for e in decision.effects)


def test_at_the_ceiling_a_held_step_stays_for_reprocessing() -> None:
    m = model(on_exhausted="hold")
    d = Driver(m)
    d.start(x=1)
    event = failed(d, attempt=3)
    decision = decide(m, d.state, event, event.at)
    assert isinstance(decision.effects[0], DeadLetter)
    assert any(isinstance(e, Transitioned) for e in decision.effects)
    assert [t.status for t in decision.new_state.tokens] == ["held"]


def test_a_compensation_out_of_attempts_is_only_dead_lettered() -> None:
    m = model()
    d = Driver(m)
    d.start(x=1)
    event = failed(d, attempt=3, kind="compensation")
    decision = decide(m, d.state, event, event.at)
    assert decision.unchanged and decision.logged is None
    (letter,) = decision.effects
    assert isinstance(letter, DeadLetter) and letter.kind == "compensation"


def test_a_finished_instance_still_gets_its_retry_or_dead_letter() -> None:
    m = model()
    d = Driver(m)
    d.start(x=1)
    event = failed(d, attempt=3)
    d.apply(Cancelled(at=d.now, reason="cancelled"))
    decision = decide(m, d.state, event, event.at)
    assert decision.unchanged
    (letter,) = decision.effects
    assert isinstance(letter, DeadLetter)
    first = msgspec.structs.replace(event, attempt=1, used=1)
    retry = decide(m, d.state, first, event.at)
    assert isinstance(retry.effects[0], ScheduleStep)
