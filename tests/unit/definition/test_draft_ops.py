"""The draft editor's operations as pure functions: each returns a new document (the input is
untouched), keeps every reference consistent, and refuses bad input field by field."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from modules.diario.workflows import PUBLICACAO
from services.workflow.definition.drafts.links import connect, disconnect
from services.workflow.definition.drafts.ops import (
    OpError,
    UnknownNode,
    add_node,
    find,
    links,
    move_node,
    node_ids,
    remove_node,
    rename_node,
)
from services.workflow.definition.drafts.props import (
    add_rule,
    add_timer,
    current_properties,
    new_document,
    remove_timer,
    set_condition,
    set_header,
    set_properties,
)


def _gateway() -> dict[str, Any]:
    """Every kind of reference: next, a fork list, outcomes, branches, default, timers, policy."""
    return {
        "format": 1,
        "key": "t.refs",
        "name": "Refs",
        "protocol_prefix": "REF",
        "nodes": [
            {"id": "start", "type": "start", "next": "review"},
            {
                "id": "review",
                "name": "Review",
                "type": "approval",
                "queue": "q.review",
                "outcomes": {"approve": "route", "reject": "rejected"},
                "timers": [{"id": "expire", "duration": "PT48H", "next": "rejected"}],
            },
            {
                "id": "route",
                "type": "exclusive",
                "branches": [{"when": "big", "next": "fork"}, {"when": "odd", "next": "rejected"}],
                "default": "rejected",
            },
            {"id": "fork", "type": "parallel", "next": ["sign", "rejected"]},
            {
                "id": "sign",
                "name": "Sign",
                "type": "user_task",
                "queue": "q.sign",
                "policy": {"exclude_completers_of": ["review"]},
                "next": "done",
            },
            {"id": "done", "type": "end"},
            {"id": "rejected", "type": "end", "result": "rejected"},
        ],
    }


def _targets(document: dict[str, Any]) -> set[str]:
    return {link.target for node in document["nodes"] for link in links(node)}


def test_a_new_document_has_its_header_a_start_and_an_end() -> None:
    doc = new_document("compras.pedido", "Pedido", "PED")
    assert (doc["key"], doc["protocol_prefix"], node_ids(doc)) == (
        "compras.pedido",
        "PED",
        ["start", "end"],
    )


def test_a_new_document_refuses_a_bad_key_and_prefix_on_their_fields() -> None:
    with pytest.raises(OpError) as refused:
        new_document("Compras Pedido", "Pedido", "pe")
    assert set(refused.value.errors) == {"key", "protocol_prefix"}


def test_adding_a_node_inserts_it_after_the_chosen_node_without_touching_the_input() -> None:
    original = new_document("t.a", "A", "AA")
    before = copy.deepcopy(original)
    applied = add_node(original, "review", "user_task", "Revisar", after="start")
    assert node_ids(applied.document) == ["start", "review", "end"]
    assert find(applied.document, "review") == {
        "id": "review",
        "type": "user_task",
        "name": "Revisar",
    }
    assert (applied.focus, original) == ("review", before)


@pytest.mark.parametrize(
    ("node_id", "node_type", "field"),
    [
        ("end", "user_task", "node_id"),
        ("Bad-Id", "user_task", "node_id"),
        ("x", "lane", "node_type"),
    ],
)
def test_adding_a_node_refuses_a_duplicate_or_malformed_id_and_unknown_type(
    node_id: str, node_type: str, field: str
) -> None:
    with pytest.raises(OpError) as refused:
        add_node(new_document("t.a", "A", "AA"), node_id, node_type)
    assert list(refused.value.errors) == [field]


def test_renaming_updates_every_reference_to_the_node() -> None:
    renamed = rename_node(_gateway(), "rejected", "refused").document
    assert "rejected" not in _targets(renamed)
    assert find(renamed, "review")["timers"][0]["next"] == "refused"
    assert find(renamed, "route")["default"] == "refused"
    assert find(renamed, "fork")["next"] == ["sign", "refused"]
    renamed = rename_node(renamed, "review", "check").document
    assert find(renamed, "start")["next"] == "check"
    assert find(renamed, "sign")["policy"]["exclude_completers_of"] == ["check"]


def test_renaming_to_an_existing_id_is_refused() -> None:
    with pytest.raises(OpError) as refused:
        rename_node(_gateway(), "sign", "done")
    assert refused.value.errors == {"new_id": "Já existe uma etapa done."}


def test_removing_a_node_removes_the_transitions_into_it_and_says_which() -> None:
    applied = remove_node(_gateway(), "rejected")
    assert "rejected" not in {*node_ids(applied.document), *_targets(applied.document)}
    assert [str(r) for r in applied.removed] == [
        "review resultado «reject» para rejected",
        "review prazo «expire» para rejected",
        "route condição 2 para rejected",
        "route caso contrário para rejected",
        "fork ramo paralelo para rejected",
    ]
    assert find(applied.document, "route")["branches"] == [{"when": "big", "next": "fork"}]
    assert (applied.focus, find(applied.document, "fork")["next"]) == ("done", ["sign"])


def test_removing_a_node_drops_it_from_separation_of_duties() -> None:
    applied = remove_node(_gateway(), "review")
    assert find(applied.document, "sign")["policy"]["exclude_completers_of"] == []
    assert [str(r) for r in applied.removed] == ["start segue para review"]


def test_moving_swaps_with_the_neighbour_and_stops_at_the_edges() -> None:
    doc = _gateway()
    moved = move_node(doc, "route", "up").document
    assert node_ids(moved)[:3] == ["start", "route", "review"]
    assert move_node(doc, "start", "up").document == doc
    assert node_ids(move_node(doc, "rejected", "down").document) == node_ids(doc)


def test_connecting_sets_the_field_the_source_type_uses() -> None:
    doc = add_node(new_document("t.a", "A", "AA"), "gate", "exclusive", after="start").document
    doc = connect(doc, "start", "gate").document
    doc = connect(doc, "gate", "end", condition="amount > 10").document
    doc = connect(doc, "gate", "end").document
    assert find(doc, "start")["next"] == "gate"
    assert find(doc, "gate")["branches"] == [{"when": "amount > 10", "next": "end"}]
    assert find(doc, "gate")["default"] == "end"


def test_connecting_an_approval_needs_an_outcome_and_an_end_has_no_exits() -> None:
    doc = _gateway()
    with pytest.raises(OpError) as no_outcome:
        connect(doc, "review", "done")
    with pytest.raises(OpError) as from_end:
        connect(doc, "done", "sign")
    assert list(no_outcome.value.errors) == ["outcome"]
    assert list(from_end.value.errors) == ["target"]


def test_an_outcome_gets_the_name_people_read_and_loses_it_with_its_transition() -> None:
    doc = connect(_gateway(), "review", "done", outcome="grant", outcome_name=" Deferir ").document
    assert find(doc, "review")["outcome_names"] == {"grant": "Deferir"}
    key = "outcome.grant"
    assert "outcome_names" not in find(disconnect(doc, "review", key).document, "review")


def test_an_outcome_name_needs_its_outcome_and_at_most_two_hundred_characters() -> None:
    with pytest.raises(OpError) as no_outcome:
        connect(_gateway(), "sign", "done", outcome_name="Deferir")
    with pytest.raises(OpError) as too_long:
        connect(_gateway(), "review", "done", outcome="grant", outcome_name="x" * 201)
    assert list(no_outcome.value.errors) == ["outcome_name"]
    assert list(too_long.value.errors) == ["outcome_name"]


def test_connecting_to_an_unknown_target_or_with_a_misplaced_condition_is_refused() -> None:
    with pytest.raises(OpError) as refused:
        connect(_gateway(), "start", "nowhere", condition="x > 1")
    assert set(refused.value.errors) == {"target", "condition"}


def test_connecting_again_replaces_a_single_next_and_reports_the_replaced_one() -> None:
    applied = connect(_gateway(), "sign", "rejected")
    assert find(applied.document, "sign")["next"] == "rejected"
    assert [str(r) for r in applied.removed] == ["sign segue para done"]


def test_a_parallel_gateway_gains_a_branch_per_connection() -> None:
    doc = connect(_gateway(), "fork", "done").document
    assert find(doc, "fork")["next"] == ["sign", "rejected", "done"]
    with pytest.raises(OpError):
        connect(doc, "fork", "done")


def test_disconnecting_removes_exactly_the_named_transition() -> None:
    doc = disconnect(_gateway(), "review", "outcome.reject").document
    assert find(doc, "review")["outcomes"] == {"approve": "route"}
    doc = disconnect(doc, "review", "timer.expire").document
    assert "next" not in find(doc, "review")["timers"][0]
    with pytest.raises(OpError):
        disconnect(doc, "review", "outcome.reject")


def test_an_unknown_node_is_a_lookup_error_not_a_field_error() -> None:
    with pytest.raises(UnknownNode):
        connect(_gateway(), "ghost", "done")


def test_properties_write_queue_form_and_handler_and_empty_removes() -> None:
    doc = add_node(new_document("t.a", "A", "AA"), "svc", "service_task").document
    doc = set_properties(
        doc, "svc", {"handler": "diario.publish", "pending_queue": "diario.publicacao"}
    ).document
    assert find(doc, "svc")["handler"] == "diario.publish"
    assert find(doc, "svc")["failure"] == {"pending_queue": "diario.publicacao"}
    doc = add_node(doc, "task", "user_task").document
    doc = set_properties(doc, "task", {"queue": "q.a", "form_key": "f.a", "form_version": "2"})
    assert find(doc.document, "task")["form"] == "f.a@2"
    cleared = set_properties(doc.document, "task", {"queue": "q.a", "form_key": ""}).document
    assert "form" not in find(cleared, "task")
    assert current_properties(find(doc.document, "task"))["form_version"] == "2"


def test_properties_refuse_malformed_names_durations_and_two_timings() -> None:
    doc = add_node(new_document("t.a", "A", "AA"), "wait", "timer").document
    with pytest.raises(OpError) as refused:
        set_properties(doc, "wait", {"duration": "P1M", "business_days": "3"})
    assert set(refused.value.errors) == {"duration", "business_days"}
    with pytest.raises(OpError) as bad_queue:
        set_properties(_gateway(), "review", {"queue": "Fila Errada"})
    assert list(bad_queue.value.errors) == ["queue"]


def test_a_boundary_timer_is_added_and_removed_on_a_human_task() -> None:
    values = {"timer_id": "remind", "business_days": "3", "escalate_to": "q.boss"}
    doc = add_timer(_gateway(), "sign", values).document
    assert find(doc, "sign")["timers"] == [
        {"id": "remind", "business_days": 3, "interrupting": False, "escalate_to": "q.boss"}
    ]
    assert find(remove_timer(doc, "sign", "remind").document, "sign")["timers"] == []


def test_a_boundary_timer_needs_one_timing_and_a_destination() -> None:
    with pytest.raises(OpError) as refused:
        add_timer(_gateway(), "sign", {"timer_id": "expire"})
    assert set(refused.value.errors) == {"duration", "target"}
    with pytest.raises(OpError) as not_human:
        add_timer(_gateway(), "route", {"timer_id": "t", "duration": "PT1H", "target": "done"})
    assert list(not_human.value.errors) == ["timer_id"]


def test_a_branch_condition_is_rewritten_in_place() -> None:
    doc = set_condition(_gateway(), "route", "1", "amount < 0").document
    assert find(doc, "route")["branches"][1] == {"when": "amount < 0", "next": "rejected"}
    with pytest.raises(OpError):
        set_condition(doc, "route", "7", "x")


def test_validation_rules_are_added_with_their_message() -> None:
    doc = add_node(new_document("t.a", "A", "AA"), "check", "validation").document
    rule = {"rule_id": "positive", "expr": "amount > 0", "message": "Valor positivo"}
    doc = add_rule(doc, "check", rule).document
    assert find(doc, "check")["rules"][0]["severity"] == "error"
    with pytest.raises(OpError) as duplicate:
        add_rule(doc, "check", rule)
    assert list(duplicate.value.errors) == ["rule_id"]


def test_the_header_keeps_the_key_and_validates_name_and_prefix() -> None:
    doc = set_header(PUBLICACAO, "Outro nome", "DOE", "").document
    assert (doc["key"], doc["name"], doc["protocol_prefix"]) == (
        "diario.publicacao",
        "Outro nome",
        "DOE",
    )
    with pytest.raises(OpError) as refused:
        set_header(PUBLICACAO, "", "doe", "")
    assert set(refused.value.errors) == {"name", "protocol_prefix"}
