"""Multi-instance user tasks in the pure kernel (issue #24 item 3): one task per item, all at
once or one after another, the node done when all are or when ``complete_when`` holds (the
open tasks closed in the same decision), the outputs collected in item order."""

from __future__ import annotations

from typing import Any

import pytest
from wfdrive import Driver
from wfkit import compile_doc

from contracts.errors import Conflict, DefinitionInvalid
from services.workflow.runtime.kernel.effects import CloseTasks, OpenTask
from services.workflow.runtime.kernel.events import TaskCompleted

QUORUM = 'results.filter(r, r.vote == "approve").size() >= 2'


def _doc(mode: str = "parallel", complete_when: str | None = None) -> dict[str, Any]:
    multi: dict[str, Any] = {"over": "reviewers", "item": "reviewer", "mode": mode}
    if complete_when is not None:
        multi["complete_when"] = complete_when
    return {
        "format": 1,
        "key": "test.flow",
        "name": "Pareceres",
        "protocol_prefix": "PR",
        "nodes": [
            {"id": "begin", "type": "start", "produces": ["reviewers"], "next": "review"},
            {
                "id": "review",
                "name": "Parecer",
                "type": "user_task",
                "queue": "people",
                "produces": ["vote"],
                "multi": multi,
                "next": "decide",
            },
            {
                "id": "decide",
                "type": "exclusive",
                "branches": [{"when": "size(review_results) > 0", "next": "finish"}],
                "default": "finish",
            },
            {"id": "finish", "type": "end"},
        ],
    }


def _complete(d: Driver, token_id: str, actor: str | None = None, **data: Any) -> Any:
    token = next(t for t in d.state.tokens if t.id == token_id)
    return d.apply(
        TaskCompleted(
            at=d.now,
            token_id=token.id,
            node_id=token.node_id,
            attempt_group=token.attempt_group,
            data=data,
            actor=actor or f"person-{token_id}",
        )
    )


def test_parallel_opens_one_task_per_item_each_with_its_item() -> None:
    d = Driver(compile_doc(_doc()))
    decision = d.start(reviewers=["ana", "bia", "caio"])
    opened = [(e.token_id, e.data) for e in decision.effects if isinstance(e, OpenTask)]
    assert opened == [
        ("t.0", {"reviewer": "ana"}),
        ("t.1", {"reviewer": "bia"}),
        ("t.2", {"reviewer": "caio"}),
    ]
    places = [e.multi for e in decision.effects if isinstance(e, OpenTask)]
    assert places[1] == {"item": "reviewer", "value": "bia", "index": 1, "total": 3}
    _complete(d, "t.2", vote="reject")
    _complete(d, "t.0", vote="approve")
    assert d.state.status == "waiting" and [t.id for t in d.state.tokens] == ["t.1"]
    _complete(d, "t.1", vote="approve")
    assert d.state.status == "completed"
    assert d.state.context["review_results"] == [
        {"vote": "approve"},
        {"vote": "approve"},
        {"vote": "reject"},
    ]
    assert "vote" not in d.state.context and d.state.multi == ()
    assert d.replayed() == d.state


def test_a_quorum_closes_the_open_task_in_the_same_decision() -> None:
    d = Driver(compile_doc(_doc(complete_when=QUORUM)))
    d.start(reviewers=["ana", "bia", "caio"])
    _complete(d, "t.0", vote="approve")
    decision = _complete(d, "t.2", vote="approve")
    closed = [(e.token_id, e.reason) for e in decision.effects if isinstance(e, CloseTasks)]
    assert closed == [("t.2", "completed"), ("t.1", "completion_condition")]
    assert d.state.status == "completed"
    assert d.state.context["review_results"] == [{"vote": "approve"}, None, {"vote": "approve"}]
    assert d.replayed() == d.state


def test_sequential_opens_the_next_task_when_the_previous_completes() -> None:
    d = Driver(compile_doc(_doc(mode="sequential")))
    decision = d.start(reviewers=["ana", "bia"])
    assert [e.data for e in decision.effects if isinstance(e, OpenTask)] == [{"reviewer": "ana"}]
    decision = _complete(d, "t.0", vote="approve")
    assert [e.data for e in decision.effects if isinstance(e, OpenTask)] == [{"reviewer": "bia"}]
    _complete(d, "t.1", vote="reject")
    assert d.state.context["review_results"] == [{"vote": "approve"}, {"vote": "reject"}]
    assert d.state.status == "completed" and d.replayed() == d.state


def test_an_empty_list_completes_the_node_at_once() -> None:
    d = Driver(compile_doc(_doc()))
    d.start(reviewers=[])
    assert d.state.status == "completed" and d.state.context["review_results"] == []


def test_a_value_that_is_not_a_list_fails_the_instance_naming_the_node() -> None:
    d = Driver(compile_doc(_doc()))
    d.start(reviewers="ana")
    assert d.state.status == "failed"
    assert d.state.failure is not None and d.state.failure.node_id == "review"


def test_outcomes_or_timers_on_a_multi_instance_task_are_refused_naming_the_node() -> None:
    doc = _doc()
    task = doc["nodes"][1]
    task["timers"] = [{"id": "late", "duration": "P1D", "next": "finish"}]
    with pytest.raises(DefinitionInvalid) as info:
        compile_doc(doc)
    (error,) = [e for e in info.value.errors if e.code == "multi_instance"]
    assert error.path == "nodes[1] (review).multi" and "`review`" in error.message
    doc["nodes"][1]["multi"]["mode"] = "both"
    with pytest.raises(DefinitionInvalid) as info:
        compile_doc(doc)
    assert "parallel, sequential" in str(info.value.errors[0].message)


def test_one_person_completes_one_task_of_the_node_unless_it_allows_more() -> None:
    d = Driver(compile_doc(_doc()))
    d.start(reviewers=["ana", "bia"])
    _complete(d, "t.0", actor="ana", vote="approve")
    before = d.state
    with pytest.raises(Conflict) as info:
        _complete(d, "t.1", actor="ana", vote="approve")
    assert info.value.fields["code"] == info.value.fields["rule"] == "distinct_people"
    assert info.value.fields["node_id"] == "review" and d.state == before
    (error,) = info.value.errors
    assert error.code == "distinct_people" and "`review`" in error.message
    _complete(d, "t.1", actor="bia", vote="approve")
    assert d.state.status == "completed"

    doc = _doc()
    doc["nodes"][1]["multi"]["distinct_people"] = False
    d = Driver(compile_doc(doc))
    d.start(reviewers=["ana", "bia"])
    _complete(d, "t.0", actor="ana", vote="approve")
    _complete(d, "t.1", actor="ana", vote="reject")
    assert d.state.status == "completed"
