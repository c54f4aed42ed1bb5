"""Semantic checks on nodes: shapes, registered names, timers, policies, expressions."""

from __future__ import annotations

from typing import Any

import pytest
from wfdocs import end, errors_of, flow, one, start, task, work
from wfkit import COMPILER, KNOWN, example_doc

from contracts.errors import DefinitionInvalid
from services.workflow.definition import parse_definition, validate_or_raise


def test_approval_needs_two_outcomes() -> None:
    one(flow(start(), task("work", {"ok": "finish"}), end()), "approval_outcomes", "work")


def test_user_task_needs_next_or_outcomes() -> None:
    node = {"id": "work", "name": "Work", "type": "user_task", "queue": "people"}
    one(flow(start(), node, end()), "task_exits", "work")


def test_unregistered_handler_form_queue_and_provider() -> None:
    bad = task(
        "work",
        {"ok": "finish", "no": "finish"},
        form="nope.form",
        queue="nope.queue",
        requires=["nope.provider"],
        compensation="nope.undo",
    )
    errors = {e.code: e for e in errors_of(flow(start(), bad, end()))}
    assert errors["unknown_form"].path == "nodes[1] (work).form"
    assert errors["unknown_queue"].path == "nodes[1] (work).queue"
    assert errors["unknown_provider"].path == "nodes[1] (work).requires[0]"
    assert errors["unknown_handler"].path == "nodes[1] (work).compensation"
    assert all("`work`" in e.message for e in errors.values())


def test_unregistered_step_handler() -> None:
    error = one(flow(start(), work(handler="nope.do"), end()), "unknown_handler", "work")
    assert "`nope.do`" in error.message


def test_pending_queue_must_be_registered() -> None:
    node = work(failure={"pending_queue": "nope.operators"})
    error = one(flow(start(), node, end()), "unknown_queue", "work")
    assert error.path == "nodes[1] (work).failure.pending_queue"


def test_default_pending_queue_is_the_definition_operators_queue() -> None:
    error = one(flow(start(), work(), end(), key="other.flow"), "unknown_queue", "work")
    assert "`other.flow.operators`" in error.message
    fails = work(failure={"on_validation_error": "fail"})
    assert errors_of(flow(start(), fails, end(), key="other.flow")) == []


def test_escalation_queue_must_be_registered() -> None:
    timers = [{"id": "esc", "business_days": 2, "interrupting": False, "escalate_to": "nope"}]
    node = task("work", {"ok": "finish", "no": "finish"}, timers=timers)
    error = one(flow(start(), node, end()), "unknown_queue", "work")
    assert error.path == "nodes[1] (work).timers[0].escalate_to"


def test_expression_that_does_not_compile() -> None:
    route = {
        "id": "work",
        "type": "exclusive",
        "branches": [{"when": "x >", "next": "finish"}],
        "default": "finish",
    }
    error = one(flow(start(), route, end()), "expression_invalid", "work")
    assert error.path == "nodes[1] (work).branches[0].when"
    assert "`x >`" in error.message


def test_expression_using_a_key_not_available_there() -> None:
    route = {
        "id": "work",
        "type": "exclusive",
        "branches": [{"when": "later > 1", "next": "finish"}],
        "default": "finish",
    }
    error = one(flow(start(), route, end()), "expression_invalid", "work")
    assert "'later'" in error.message


def test_validation_rules_see_required_provider_data() -> None:
    check = {
        "id": "work",
        "type": "validation",
        "requires": ["budget.balance"],
        "next": "finish",
        "rules": [{"id": "enough", "expr": "budget.balance >= x", "message": "No budget."}],
    }
    assert errors_of(flow(start(), check, end())) == []


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"duration": "PT1H", "business_days": 2}, "timer_spec"),
        ({"duration": "P1M"}, "invalid_duration"),
    ],
)
def test_timer_node_specification(fields: dict[str, Any], code: str) -> None:
    node = {"id": "work", "type": "timer", "next": "finish", **fields}
    one(flow(start(), node, end()), code, "work")


def test_boundary_timer_needs_a_target_that_matches_interrupting() -> None:
    timers = [{"id": "late", "duration": "PT1H", "interrupting": True, "escalate_to": "bosses"}]
    node = task("work", {"ok": "finish", "no": "finish"}, timers=timers)
    error = one(flow(start(), node, end()), "timer_target", "work")
    assert error.path == "nodes[1] (work).timers[0]" and "`late`" in error.message


def test_compensation_only_on_nodes_that_do_work() -> None:
    route = {
        "id": "work",
        "type": "exclusive",
        "branches": [{"when": "x > 1", "next": "finish"}],
        "default": "finish",
        "compensation": "work.undo",
    }
    one(flow(start(), route, end()), "compensation_not_allowed", "work")


def test_inline_nodes_cannot_require_provider_data() -> None:
    route = {
        "id": "work",
        "type": "exclusive",
        "branches": [{"when": "x > 1", "next": "finish"}],
        "default": "finish",
        "requires": ["supplier"],
    }
    one(flow(start(), route, end()), "requires_not_allowed", "work")


def test_quorum_with_reject_ends_needs_a_reject_outcome() -> None:
    policy = {"quorum": {"required": 2, "reject_ends": True}}
    node = task("work", {"ok": "finish", "no": "finish"}, policy=policy)
    one(flow(start(), node, end()), "quorum_outcomes", "work")


def test_separation_of_duties_names_existing_human_tasks() -> None:
    node = task(
        "work", {"ok": "finish", "no": "finish"}, policy={"exclude_completers_of": ["ghost"]}
    )
    error = one(flow(start(), node, end()), "unknown_target", "work")
    assert "`ghost`" in error.message


def test_context_keys_cannot_be_cel_reserved_words() -> None:
    one(flow(start(produces=("x", "in")), work(), end()), "reserved_key", "begin")


def test_searchable_keys_must_be_produced_somewhere() -> None:
    error = one(flow(start(), work(), end(), searchable=["ghost"]), "unknown_key")
    assert error.path == "searchable[0]" and "`ghost`" in error.message


def test_third_party_keys_must_be_personal() -> None:
    doc = flow(start(produces=("x", "w")), work(), end(), personal=["x"], third_party=["w"])
    error = one(doc, "not_personal")
    assert error.path == "third_party[0]" and "`w`" in error.message


def test_every_error_is_reported_at_once() -> None:
    doc = example_doc("purchase_approval")
    doc["nodes"][4]["handler"] = "nope.reserve"
    doc["nodes"][3]["queue"] = "nope.managers"
    doc["nodes"][2]["branches"][0]["when"] = "valeu > 10000"
    codes = sorted(e.code for e in errors_of(doc))
    assert codes == ["expression_invalid", "unknown_handler", "unknown_queue"]


def test_validate_or_raise_carries_every_error() -> None:
    doc = flow(start(), work(handler="nope.do"), work("orphan"), end())
    with pytest.raises(DefinitionInvalid) as info:
        validate_or_raise(parse_definition(doc), KNOWN, COMPILER)
    assert {e.code for e in info.value.errors} == {"unknown_handler", "unreachable"}
    assert info.value.to_problem()["status"] == 422


TABLE = {
    "hit_policy": "first",
    "inputs": [{"expr": "x"}],
    "outputs": ["tier"],
    "rules": [{"when": ["> 10"], "then": {"tier": "high"}}],
    "default": {"tier": "low"},
}


def test_decision_table_compiles_through_the_table_compiler() -> None:
    node = {
        "id": "work",
        "type": "decision_table",
        "table": TABLE,
        "produces": ["tier"],
        "next": "finish",
    }
    assert errors_of(flow(start(), node, end())) == []


def test_decision_table_using_an_unavailable_key() -> None:
    table = {**TABLE, "inputs": [{"expr": "missing"}]}
    node = {"id": "work", "type": "decision_table", "table": table, "next": "finish"}
    error = one(flow(start(), node, end()), "table_invalid", "work")
    assert error.path == "nodes[1] (work).table.inputs[0].expr" and "'missing'" in error.message


def test_service_task_worker_queue_must_be_registered_unless_built_in() -> None:
    one(flow(start(), work(queue="erp.slow"), end()), "unknown_queue", "work")
    assert errors_of(flow(start(), work(queue="notification"), end())) == []


def test_boundary_timer_needs_exactly_one_duration_kind() -> None:
    timers = [{"id": "late", "next": "finish"}]
    node = task("work", {"ok": "finish", "no": "finish"}, timers=timers)
    error = one(flow(start(), node, end()), "timer_spec", "work")
    assert error.path == "nodes[1] (work).timers[0]"


def test_backoff_cap_below_the_base_delay() -> None:
    node = work(failure={"backoff_base_s": 10.0, "backoff_cap_s": 2.0})
    error = one(flow(start(), node, end()), "out_of_range", "work")
    assert error.path == "nodes[1] (work).failure.backoff_cap_s"
