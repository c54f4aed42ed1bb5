"""The engine's codes (statuses, history events, node types, outcomes) become translated words
in one place, and every template gets them as filters."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import get_args

import pytest
from jinja2 import Environment

from contracts.errors import TramitaError
from contracts.workflow.types import InstanceStatus, TaskStatus
from core import i18n
from services.workflow import labels as tables
from services.workflow.definition import model
from services.workflow.runtime.kernel import events
from services.workflow.ui import labels

LOCALES = Path(labels.__file__).resolve().parents[1] / "locale"


@pytest.fixture(autouse=True)
def _engine_catalog() -> None:
    i18n.add_catalog_directory(LOCALES)


def test_every_instance_and_task_status_has_a_label() -> None:
    assert set(get_args(InstanceStatus)) <= set(tables.STATUSES)
    assert set(get_args(TaskStatus)) <= set(tables.TASK_STATUSES)


def test_every_node_type_has_a_label() -> None:
    tags = {cls.__struct_config__.tag for cls in get_args(model.Node)}
    assert tags == set(tables.NODE_TYPES)


def test_every_engine_event_has_a_label() -> None:
    tags = {
        cls.__struct_config__.tag
        for cls in vars(events).values()
        if isinstance(cls, type) and issubclass(cls, events._Event) and cls is not events._Event
    }
    assert tags == set(tables.EVENTS)


@pytest.mark.parametrize(
    ("function", "code", "pt", "en"),
    [
        (labels.status_label, "running", "Em execução", "Running"),
        (labels.status_label, "cancelled", "Cancelado", "Cancelled"),
        (labels.task_status_label, "ready", "Na fila", "In the queue"),
        (labels.node_type_label, "user_task", "Tarefa de pessoa", "Task for a person"),
        (labels.outcome_label, "approve", "Aprovar", "Approve"),
        (labels.event_label, "started", "Processo iniciado", "Case started"),
        (
            labels.event_label,
            "transition.timer:reply",
            "Avançou ao atingir um prazo",
            "Moved on when a deadline was reached",
        ),
        (
            labels.event_label,
            "transition.task_completed:reject",
            "Avançou após uma tarefa (Rejeitar)",
            "Moved on after a task (Reject)",
        ),
        (labels.event_label, "transition.cancelled", "Processo cancelado", "Case cancelled"),
    ],
)
def test_a_code_is_shown_in_the_locale_in_force(
    function: object, code: str, pt: str, en: str
) -> None:
    assert callable(function)
    with i18n.using("pt_BR"):
        assert function(code) == pt
    with i18n.using("en"):
        assert function(code) == en


def test_an_unknown_code_is_shown_as_it_is_and_none_as_a_dash() -> None:
    assert labels.status_label("brand_new") == "brand_new"
    assert labels.event_label("transition.brand_new") == "brand_new"
    assert labels.node_type_label(None) == "—"


def test_templates_get_the_labels_as_filters_and_globals() -> None:
    env = Environment(autoescape=True)
    env.filters.update(labels.FILTERS)
    env.globals.update(labels.FILTERS)
    page = env.from_string("{{ s|status_label }} / {{ event_label(e) }}")
    with i18n.using("pt_BR"):
        assert page.render(s="waiting", e="task_completed") == "Aguardando / Tarefa concluída"


def _service_errors() -> list[type[TramitaError]]:
    """Every error class the service defines (its modules imported, so the classes exist)."""
    package = Path(labels.__file__).resolve().parents[1]
    for source in sorted(package.rglob("*.py")):
        name = ".".join(source.relative_to(package.parents[1]).with_suffix("").parts)
        if "migrations" not in name and name.rsplit(".", 1)[-1] not in ("__main__", "setup"):
            importlib.import_module(name.removesuffix(".__init__"))
    found, stack = [], [TramitaError]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.__module__.startswith("services.workflow.") and "title" in vars(cls):
            found.append(cls)
    return found


def test_every_error_title_of_the_service_is_in_the_catalog_and_read_in_portuguese() -> None:
    errors = _service_errors()
    assert len(errors) >= 14
    assert sorted({cls.title for cls in errors}) == sorted(labels.ERROR_TITLES)
    with i18n.using("pt_BR"):
        untranslated = [t for t in labels.ERROR_TITLES if i18n.gettext(t) == t]
    assert untranslated == []
