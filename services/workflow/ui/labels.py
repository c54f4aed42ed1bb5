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

STATUSES: Mapping[str, str] = {
    "created": N_("Created"),
    "running": N_("Running"),
    "waiting": N_("Waiting"),
    "stalled": N_("Stalled"),
    "compensating": N_("Compensating"),
    "suspended": N_("Suspended"),
    "completed": N_("Completed"),
    "rejected": N_("Rejected"),
    "expired": N_("Expired"),
    "failed": N_("Failed"),
    "cancelled": N_("Cancelled"),
}
"""Instance statuses (``contracts.workflow.types.InstanceStatus``)."""

TASK_STATUSES: Mapping[str, str] = {
    "ready": N_("In the queue"),
    "claimed": N_("Claimed"),
    "completed": N_("Completed"),
    "cancelled": N_("Cancelled"),
}
"""Human task statuses (``TaskStatus``)."""

STEP_STATUSES: Mapping[str, str] = {
    "scheduled": N_("Scheduled"),
    "pending": N_("Pending"),
    "running": N_("Running"),
    "succeeded": N_("Succeeded"),
    "failed": N_("Failed"),
    "dead": N_("Dead letter"),
    "cancelled": N_("Cancelled"),
}
"""Automatic step statuses (the attempts of a service task)."""

VERSION_STATUSES: Mapping[str, str] = {
    "published": N_("Published"),
    "draft": N_("Draft"),
    "retired": N_("Retired"),
}
"""Definition version statuses."""

EVENTS: Mapping[str, str] = {
    "started": N_("Case started"),
    "step_succeeded": N_("Step done"),
    "step_failed": N_("Step failed"),
    "step_attempt_failed": N_("Step attempt failed"),
    "task_completed": N_("Task completed"),
    "timer_fired": N_("Deadline reached"),
    "cancelled": N_("Case cancelled"),
    "signalled": N_("Signal received"),
    "reprocessed": N_("Step sent again"),
    "abandoned": N_("Step abandoned"),
    "migrated": N_("Moved to another version"),
    "repaired": N_("Repaired by an operator"),
    "compensation_done": N_("Compensation done"),
}
"""History events: the tag of each engine event (``runtime/kernel/events.py``)."""

TRANSITIONS: Mapping[str, str] = {
    "started": N_("Entered the first step"),
    "step_succeeded": N_("Moved on after an automatic step"),
    "task_completed": N_("Moved on after a task"),
    "timer": N_("Moved on when a deadline was reached"),
    "migrated": N_("Moved by a migration"),
    "repaired": N_("Moved by an operator"),
    "held": N_("Held for an operator"),
    "pending_task": N_("Waiting for an operator to fix the data"),
    "reprocessed": N_("Step sent again"),
    "completed": N_("Case completed"),
    "rejected": N_("Case rejected"),
    "expired": N_("Case expired"),
    "failed": N_("Case failed"),
    "cancelled": N_("Case cancelled"),
}
"""History ``transition.<cause>`` entries (``task_completed:<outcome>`` and ``timer:<id>`` by
their prefix)."""

NODE_TYPES: Mapping[str, str] = {
    "start": N_("Start"),
    "validation": N_("Validation"),
    "approval": N_("Approval"),
    "user_task": N_("Task for a person"),
    "manual_task": N_("Manual task"),
    "service_task": N_("Automatic step"),
    "integration": N_("Integration"),
    "notification": N_("Notification"),
    "timer": N_("Wait"),
    "exclusive": N_("Decision"),
    "parallel": N_("Parallel paths"),
    "decision_table": N_("Decision table"),
    "end": N_("End"),
}
"""Node types (the ``type`` tag of ``definition/model.py``)."""

OUTCOMES: Mapping[str, str] = {
    "approve": N_("Approve"),
    "approved": N_("Approved"),
    "reject": N_("Reject"),
    "rejected": N_("Rejected"),
    "return": N_("Return"),
    "extend": N_("Extend the deadline"),
    "answer": N_("Answer"),
    "forward": N_("Forward"),
    "deny": N_("Deny"),
    "grant": N_("Grant"),
}
"""Common outcome ids, for definitions that do not name their outcomes."""


def _label(table: Mapping[str, str], code: object) -> str:
    if code is None:
        return "—"
    text = str(code)
    found = table.get(text)
    return gettext(found) if found else text


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
    if code is None:
        return "—"
    text = str(code)
    if not text.startswith("transition."):
        return _label(EVENTS, text)
    cause = text.removeprefix("transition.")
    head, _, detail = cause.partition(":")
    if head == "task_completed" and detail:
        return gettext("Moved on after a task (%(outcome)s)") % {"outcome": outcome_label(detail)}
    if head == "timer" and detail:
        return gettext(TRANSITIONS["timer"])
    return _label(TRANSITIONS, cause)


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
