"""Outcome words: the definition's name for an outcome, else the standard word, else the id;
the history names a task's decision by it."""

from __future__ import annotations

from datetime import UTC, datetime

from contracts.workflow.types import HistoryEntry
from core import i18n
from services.workflow.ui.outcomes import history_event, outcome_names, outcome_text

DEFINITION = {
    "nodes": [
        {"id": "start", "type": "start"},
        {
            "id": "review",
            "type": "approval",
            "outcomes": {"approve": "end", "reject": "end"},
            "outcome_names": {"approve": "Deferir"},
        },
    ]
}


def _completed(outcome: str, node: str = "review") -> HistoryEntry:
    return HistoryEntry(
        seq=1,
        at=datetime(2026, 3, 2, tzinfo=UTC),
        event=f"transition.task_completed:{outcome}",
        from_node=node,
        to_node="end",
        actor=None,
    )


def test_the_names_come_from_the_nodes_that_give_them() -> None:
    assert outcome_names(DEFINITION) == {"review": {"approve": "Deferir"}}
    assert outcome_names(None) == {}


def test_an_outcome_without_a_name_falls_back_to_the_standard_word_then_the_id() -> None:
    named = outcome_names(DEFINITION)
    with i18n.using("pt_BR"):
        assert outcome_text(named, "review", "approve") == "Deferir"
        assert outcome_text(named, "review", "reject") == "Rejeitar"
        assert outcome_text(named, "other", "approve") == "Aprovar"
        assert outcome_text(named, "review", "archive") == "archive"


def test_the_history_names_the_decision_by_its_outcome_name() -> None:
    named = outcome_names(DEFINITION)
    with i18n.using("pt_BR"):
        assert history_event(named, _completed("approve")) == "Avançou após uma tarefa (Deferir)"
        assert history_event(named, _completed("reject")) == "Avançou após uma tarefa (Rejeitar)"
