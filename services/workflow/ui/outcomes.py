"""The words people read for a task's outcomes: the definition's ``outcome_names`` (pt-BR),
else the standard word for the id (``labels.OUTCOMES``), else the id itself.

The task page labels its decision buttons with them and the case history says which decision
moved the case on; what is submitted and stored stays the outcome's id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from litestar import Request

from contracts.workflow.types import HistoryEntry, InstanceView
from core.i18n import gettext
from services.workflow.ui.deps import engine_of
from services.workflow.ui.labels import event_label, outcome_label

OutcomeNames = Mapping[str, Mapping[str, str]]
"""Node id → outcome id → the name the definition gives it."""

_COMPLETED = "transition.task_completed:"


def outcome_names(definition: Mapping[str, Any] | None) -> dict[str, dict[str, str]]:
    """The ``outcome_names`` of every node of a definition document that has some."""
    found: dict[str, dict[str, str]] = {}
    nodes = (definition or {}).get("nodes")
    for node in nodes if isinstance(nodes, list) else ():
        names = node.get("outcome_names") if isinstance(node, Mapping) else None
        if isinstance(names, Mapping) and names:
            found[str(node.get("id"))] = {str(k): str(v) for k, v in names.items()}
    return found


async def outcome_names_of(request: Request[Any, Any, Any], view: InstanceView) -> OutcomeNames:
    """The outcome names of the definition the instance runs (its pinned version's, or its
    embedded sub-process's)."""
    return outcome_names(await engine_of(request).definition_document(view.id))


def outcome_text(names: OutcomeNames, node_id: str | None, outcome: str) -> str:
    named = names.get(node_id or "", {}).get(outcome)
    return named if named else outcome_label(outcome)


def history_event(names: OutcomeNames, entry: HistoryEntry) -> str:
    """A history entry's event in words; a task's decision by the name of its outcome."""
    if entry.event.startswith(_COMPLETED):
        outcome = entry.event.removeprefix(_COMPLETED)
        return gettext("Moved on after a task (%(outcome)s)") % {
            "outcome": outcome_text(names, entry.from_node, outcome)
        }
    return event_label(entry.event)
