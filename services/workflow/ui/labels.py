"""One place that turns the engine's stored codes into words a person reads.

Statuses, history event names, node types and outcomes are stable English codes in the database
and the API; pages show them through these functions, which look the code up in a table of
gettext-marked msgids and translate it in the locale in force (pt-BR unless the visitor chose
English). An unknown code is shown as it is (a newer engine's value must not break a page).

Templates get them as Jinja2 filters and globals (registered by ``FILTERS`` through the UI
router's ``opt["jinja_filters"]``)::

    {{ instance.status|status_label }}   {{ t.status|task_status_label }}
    {{ h.event|event_label }}            {{ n.type|node_type_label }}
    {{ outcome|outcome_label }}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from core.i18n import N_, gettext
from services.workflow.labels import (
    NODE_TYPES,
    OUTCOMES,
    STATUSES,
    STEP_STATUSES,
    TASK_STATUSES,
    VERSION_STATUSES,
    event_words,
    word,
)


def _label(table: Mapping[str, str], code: object) -> str:
    return word(table, code, gettext)


def status_label(code: object) -> str:
    """An instance status in words (``running`` → "Em andamento")."""
    return _label(STATUSES, code)


def task_status_label(code: object) -> str:
    return _label(TASK_STATUSES, code)


def step_status_label(code: object) -> str:
    return _label(STEP_STATUSES, code)


def version_status_label(code: object) -> str:
    return _label(VERSION_STATUSES, code)


def outcome_label(code: object) -> str:
    return _label(OUTCOMES, code)


def node_type_label(code: object) -> str:
    return _label(NODE_TYPES, code)


def event_label(code: object) -> str:
    """A history entry's event: an engine event, or ``transition.<cause>``."""
    return event_words(code, gettext)


FILTERS: Mapping[str, Callable[[object], str]] = {
    "status_label": status_label,
    "task_status_label": task_status_label,
    "step_status_label": step_status_label,
    "version_status_label": version_status_label,
    "event_label": event_label,
    "node_type_label": node_type_label,
    "outcome_label": outcome_label,
}
"""What templates get, as filters and as globals of the same name."""


ERROR_TITLES: tuple[str, ...] = (
    N_("Deadline not found"),
    N_("The instance already has a deadline with this name"),
    N_("Calendar not found"),
    N_("Calendar version conflict"),
    N_("Deadline rule not found"),
    N_("Rule sandbox unavailable"),
    N_("Invalid calendar specification"),
    N_("Invalid calendar revision"),
    N_("Calendar has no business day"),
    N_("Calendar does not match the deadline"),
    N_("Invalid deadline rule"),
    N_("Invalid deadline input"),
    N_("Deadline extension refused"),
    N_("Deadline state does not allow this event"),
)
"""The titles of the service's own errors (the kernel's are in core's catalog), so that the
error page (``web.error_page``, which shows ``gettext(title)``) reads in the visitor's language."""
