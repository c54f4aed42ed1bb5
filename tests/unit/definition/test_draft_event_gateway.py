"""The draft editor's operations on an event-based gateway: added like any step, connecting it
adds a wait to its list ``next`` (a timer, or a user or manual task a message completes); a way
out that is no such event, one with deadlines of its own, or the same event twice is refused on
the target field. A draft built only with these operations validates; one wait alone is the real
validation's to report."""

from __future__ import annotations

from typing import Any

import pytest
from wfdocs import errors_of

from contracts.errors import DefinitionInvalid
from services.workflow.definition.drafts.links import connect, disconnect
from services.workflow.definition.drafts.ops import (
    NODE_TYPES,
    OpError,
    add_node,
    find,
    links,
    remove_node,
)
from services.workflow.definition.drafts.props import add_timer, new_document, set_properties


def _race() -> dict[str, Any]:
    """start → race ⟨reply (a user task), wait (P10D)⟩; reply → answered, wait → lapsed, both
    to the end; every edge drawn with ``connect``."""
    doc = new_document("test.flow", "Exigência", "EXG")
    after = "start"
    for node_id, kind in (
        ("race", "event_gateway"),
        ("reply", "user_task"),
        ("wait", "timer"),
        ("answered", "service_task"),
        ("lapsed", "service_task"),
    ):
        doc = add_node(doc, node_id, kind, after=after).document
        after = node_id
    doc = set_properties(
        doc, "reply", {"name": "Resposta", "queue": "test.flow.operators"}
    ).document
    doc = set_properties(doc, "wait", {"duration": "P10D"}).document
    for step in ("answered", "lapsed"):
        doc = set_properties(doc, step, {"handler": "work.do"}).document
        doc = connect(doc, step, "end").document
    doc = connect(doc, "start", "race").document
    doc = connect(doc, "race", "reply").document
    doc = connect(doc, "race", "wait").document
    doc = connect(doc, "reply", "answered").document
    return connect(doc, "wait", "lapsed").document


def test_the_gateway_is_offered_and_its_ways_out_are_a_list_of_waits() -> None:
    assert "event_gateway" in NODE_TYPES
    race = find(_race(), "race")
    assert race == {"id": "race", "type": "event_gateway", "next": ["reply", "wait"]}
    assert [(link.key, link.label) for link in links(race)] == [
        ("next.0", "aguarda"),
        ("next.1", "aguarda"),
    ]


def test_a_draft_built_with_the_operations_validates() -> None:
    assert errors_of(_race()) == []


def test_a_way_out_that_is_not_an_event_is_refused_on_the_target() -> None:
    doc = _race()
    with pytest.raises(OpError) as step:
        connect(doc, "race", "answered")
    with pytest.raises(OpError) as twice:
        connect(doc, "race", "wait")
    assert step.value.errors == {
        "target": "Um gateway de eventos aguarda temporizadores e tarefas de usuário ou manuais"
        " que uma mensagem conclui: answered não é nenhum deles."
    }
    assert twice.value.errors == {"target": "Já existe uma transição para wait."}


def test_a_task_with_deadlines_of_its_own_is_refused() -> None:
    doc = remove_node(_race(), "reply").document
    doc = add_node(doc, "reply", "user_task", after="race").document
    doc = add_timer(
        doc, "reply", {"timer_id": "late", "duration": "P2D", "target": "lapsed"}
    ).document
    with pytest.raises(OpError) as timed:
        connect(doc, "race", "reply")
    assert list(timed.value.errors) == ["target"]
    assert "tem prazos próprios" in timed.value.errors["target"]


def test_a_single_wait_and_a_wait_reached_from_elsewhere_are_reported_by_validation() -> None:
    alone = disconnect(_race(), "race", "next.1").document
    assert find(alone, "race")["next"] == ["reply"]
    with pytest.raises(DefinitionInvalid) as short:
        errors_of(alone)
    assert [(e.path, e.message) for e in short.value.errors] == [
        ("nodes[1] (race).next", "`next` must have at least 2 items.")
    ]
    shared = connect(_race(), "start", "wait").document
    assert "event_gateway_target" in {e.code for e in errors_of(shared)}
