"""What a node *is*, as pure edits of a draft: its properties (queue, form, handler, timing,
result...), the conditions of a gateway's branches, boundary timers and validation rules, and
the definition's own header. Like :mod:`.ops`, each returns a new document and refuses
only what is wrong on its own; CEL text is checked by the caller (the rules package).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any, Final

from core.i18n import gettext
from core.numbers import whole_number
from services.workflow.definition.drafts.ops import (
    HUMAN,
    MAX_EXPR,
    MAX_NAME,
    Applied,
    Document,
    Node,
    OpError,
    check_dotted,
    check_identifier,
    dict_field,
    find,
    list_field,
    refuse_if,
    target_error,
    timers_of,
)
from services.workflow.definition.durations import DurationError, parse_duration
from services.workflow.definition.node_checks import NOT_COMPENSABLE, compensable

WORK: Final = ("validation", "service_task", "integration", "notification", "decision_table")
RESULTS: Final = ("completed", "rejected", "expired", "failed")
PREFIX: Final = re.compile(r"^[A-Z]{2,10}$")
MAX_DAYS: Final = 3650
WAITING: Final = frozenset({"subprocess", "call"})
"""Steps whose boundary timers wait on a child instance: they need a target, never escalate."""

PROPERTIES: Final[Mapping[str, tuple[str, ...]]] = {
    "approval": ("name", "queue", "form_key", "form_version"),
    "user_task": ("name", "queue", "form_key", "form_version"),
    "manual_task": ("name", "queue"),
    "service_task": ("name", "handler", "compensation", "queue", "pending_queue"),
    "integration": ("name", "handler", "compensation", "queue", "pending_queue"),
    "notification": ("name", "handler", "compensation", "template", "pending_queue"),
    "validation": ("name", "pending_queue"),
    "decision_table": ("name", "pending_queue"),
    "timer": ("name", "duration", "business_days", "until"),
    "end": ("name", "result", "compensate"),
}
"""The properties form of each node type; any other type has only its name."""


def property_fields(node_type: str) -> tuple[str, ...]:
    return PROPERTIES.get(node_type, ("name",))


def current_properties(node: Mapping[str, Any]) -> dict[str, str]:
    """The form's values as the node holds them now (empty text for what is absent)."""
    form = str(node.get("form") or "")
    key, _, version = form.partition("@")
    failure = dict_field(node, "failure")
    values = {
        "name": node.get("name"),
        "queue": node.get("queue"),
        "form_key": key,
        "form_version": version,
        "handler": node.get("handler"),
        "compensation": node.get("compensation"),
        "template": node.get("template"),
        "pending_queue": failure.get("pending_queue"),
        "duration": node.get("duration"),
        "business_days": node.get("business_days"),
        "until": node.get("until"),
        "result": node.get("result") or ("completed" if node.get("type") == "end" else None),
        "compensate": "true" if node.get("compensate") is True else None,
    }
    return {k: "" if v is None else str(v) for k, v in values.items()}


# --- the definition's header -----------------------------------------------------------------


def header_errors(name: str, prefix: str) -> dict[str, str | None]:
    return {
        "name": gettext("Give the name.")
        if not name
        else (gettext("Name too long.") if len(name) > MAX_NAME else None),
        "protocol_prefix": None
        if PREFIX.match(prefix)
        else gettext("Use 2 to 10 capital letters, such as PUR."),
    }


def new_document(key: str, name: str, prefix: str) -> Document:
    """A draft from scratch: the header, a start and an end (to be connected)."""
    errors = header_errors(name, prefix)
    errors["key"] = check_dotted(key) if key else gettext("Give the key of the definition.")
    refuse_if(errors)
    return {
        "format": 1,
        "key": key,
        "name": name,
        "protocol_prefix": prefix,
        "nodes": [{"id": "start", "type": "start"}, {"id": "end", "type": "end"}],
    }


def set_header(document: Mapping[str, Any], name: str, prefix: str, description: str) -> Applied:
    refuse_if(header_errors(name, prefix))
    doc = copy.deepcopy(dict(document))
    doc.update(name=name, protocol_prefix=prefix)
    _put(doc, "description", description)
    return Applied(doc, None)


# --- properties ------------------------------------------------------------------------------


def set_properties(document: Mapping[str, Any], node_id: str, values: Mapping[str, str]) -> Applied:
    """Write the properties form of the node's type; an empty field removes the property.

    ``compensate`` is a checkbox (``"true"`` or absent). A ``compensation`` sent for a type the
    format refuses it on is refused with the definition check's own rule and sentence, even
    though the form does not offer it there."""
    kind = str(find(document, node_id).get("type"))
    fields = property_fields(kind)
    given = {f: values.get(f, "").strip() for f in fields}
    errors = {f: _property_error(f, v, given) for f, v in given.items()}
    if values.get("compensation", "").strip() and not compensable(kind):
        errors["compensation"] = gettext(NOT_COMPENSABLE) % {"node": node_id, "type": kind}
    refuse_if(errors)
    doc = copy.deepcopy(dict(document))
    node = find(doc, node_id)
    for field, value in given.items():
        _write_property(node, field, value, given)
    return Applied(doc, node_id)


def _property_error(field: str, value: str, given: Mapping[str, str]) -> str | None:
    if not value:
        return None
    if field in ("queue", "handler", "compensation", "form_key", "pending_queue"):
        return check_dotted(value)
    if field == "name":
        return gettext("Name too long (up to 200).") if len(value) > MAX_NAME else None
    if field == "form_version":
        if not given.get("form_key"):
            return gettext("Give the key of the form before its version.")
        valid = whole_number(value, low=1) is not None
        return None if valid else gettext("The version is a number from 1.")
    if field in ("duration", "business_days", "until"):
        return _timing_error(field, value, given)
    if field == "result":
        return None if value in RESULTS else gettext("Choose a result from the list.")
    return gettext("Text too long.") if len(value) > MAX_EXPR else None


def _timing_error(field: str, value: str, given: Mapping[str, str]) -> str | None:
    others = [f for f in ("duration", "business_days", "until") if f != field and given.get(f)]
    if others and field != "duration":
        return gettext("Use only one: duration, business days or a limit date.")
    if field == "duration":
        return _duration_error(value)
    if field == "business_days":
        return _days_error(value)
    return gettext("Expression too long.") if len(value) > MAX_EXPR else None


def _duration_error(value: str) -> str | None:
    try:
        parse_duration(value)
    except DurationError:
        return gettext(
            "Use an ISO 8601 duration in weeks, days, hours or minutes, such as PT48H or P2D."
        )
    return None


def _days_error(value: str) -> str | None:
    if whole_number(value, low=1, high=MAX_DAYS) is not None:
        return None
    return gettext("Business days: a number from 1 to %(max)s.") % {"max": MAX_DAYS}


def _write_property(node: Node, field: str, value: str, given: Mapping[str, str]) -> None:
    if field == "form_key":
        version = given.get("form_version", "")
        _put(node, "form", f"{value}@{version}" if value and version else value)
    elif field == "pending_queue":
        failure = dict(dict_field(node, "failure"))
        _put(failure, "pending_queue", value)
        _put(node, "failure", failure)
    elif field == "business_days":
        _put(node, field, int(value) if value else None)
    elif field == "compensate":
        _put(node, field, True if value == "true" else None)
    elif field != "form_version":
        _put(node, field, value)


def _put(holder: dict[str, Any], field: str, value: Any) -> None:
    """Set ``field``, or remove it when the value is empty (absent means the default)."""
    if value in ("", None, {}):
        holder.pop(field, None)
    else:
        holder[field] = value


# --- conditions, boundary timers, validation rules ---------------------------------------------


def set_condition(document: Mapping[str, Any], node_id: str, index: str, when: str) -> Applied:
    """Rewrite the condition of one branch of a gateway (exclusive or inclusive)."""
    node = find(document, node_id)
    branches = list_field(node, "branches")
    position = whole_number(index)
    if position is None or position >= len(branches):
        raise OpError({"when": gettext("That condition no longer exists.")})
    refuse_if({"when": _expression_error(when)})
    doc = copy.deepcopy(dict(document))
    branch = find(doc, node_id)["branches"][position]
    branch["when"] = when
    return Applied(doc, node_id)


def _expression_error(text: str) -> str | None:
    if not text.strip():
        return gettext("Give the condition.")
    return gettext("Expression too long (up to 4000 characters).") if len(text) > MAX_EXPR else None


def add_timer(document: Mapping[str, Any], node_id: str, values: Mapping[str, str]) -> Applied:
    """A boundary timer on a human task, a sub-process or a call: one of duration / business
    days, and where it leads (the last two wait for a child, with no task to escalate)."""
    node = find(document, node_id)
    waits = node.get("type") in WAITING
    if node.get("type") not in HUMAN and not waits:
        raise OpError(
            {"timer_id": gettext("Only human tasks, sub-processes and calls have deadlines.")}
        )
    timer_id = values.get("timer_id", "").strip()
    duration = values.get("duration", "").strip()
    days = values.get("business_days", "").strip()
    target = values.get("target", "").strip()
    escalate = values.get("escalate_to", "").strip()
    id_error = check_identifier(timer_id, "timer")
    if id_error is None and timer_id in {str(t.get("id")) for t in timers_of(node)}:
        id_error = gettext("This step already has a deadline %(id)s.") % {"id": timer_id}
    errors = {
        "timer_id": id_error,
        "duration": _duration_error(duration) if duration else None,
        "business_days": _days_error(days) if days else None,
        "target": target_error(document, target) if target else None,
        "escalate_to": check_dotted(escalate) if escalate else None,
    }
    if bool(duration) == bool(days):
        errors["duration"] = errors["duration"] or gettext(
            "Give the duration or the business days (one of the two)."
        )
    if waits and escalate:
        errors["escalate_to"] = gettext(
            "A deadline here cannot escalate: no task waits at this step. Give the target."
        )
    elif waits and not target:
        errors["target"] = gettext("Choose the target step.")
    elif not target and not escalate:
        errors["target"] = gettext("Give the target or the queue to escalate to.")
    refuse_if(errors)
    timer: dict[str, Any] = {"id": timer_id}
    _put(timer, "duration", duration)
    _put(timer, "business_days", int(days) if days else None)
    timer["interrupting"] = values.get("interrupting") == "true"
    _put(timer, "next", target)
    _put(timer, "escalate_to", escalate)
    doc = copy.deepcopy(dict(document))
    held = find(doc, node_id)
    held["timers"] = [*timers_of(held), timer]
    return Applied(doc, node_id)


def remove_timer(document: Mapping[str, Any], node_id: str, timer_id: str) -> Applied:
    if timer_id not in {str(t.get("id")) for t in timers_of(find(document, node_id))}:
        raise OpError({"timer": gettext("That deadline no longer exists.")})
    doc = copy.deepcopy(dict(document))
    node = find(doc, node_id)
    node["timers"] = [t for t in timers_of(node) if str(t.get("id")) != timer_id]
    return Applied(doc, node_id)


def add_rule(document: Mapping[str, Any], node_id: str, values: Mapping[str, str]) -> Applied:
    """A rule of a validation node: ``expr`` is CEL, true means valid."""
    node = find(document, node_id)
    if node.get("type") != "validation":
        raise OpError({"rule_id": gettext("Only validation steps have rules.")})
    rule_id = values.get("rule_id", "").strip()
    expr = values.get("expr", "").strip()
    message = values.get("message", "").strip()
    id_error = check_identifier(rule_id, "rule")
    rules = list_field(node, "rules")
    if id_error is None and rule_id in {str(r.get("id")) for r in rules if isinstance(r, dict)}:
        id_error = gettext("This step already has a rule %(id)s.") % {"id": rule_id}
    refuse_if(
        {
            "rule_id": id_error,
            "expr": _expression_error(expr),
            "message": None
            if 0 < len(message) <= 500
            else gettext("Give the message (up to 500)."),
        }
    )
    severity = "warning" if values.get("severity") == "warning" else "error"
    doc = copy.deepcopy(dict(document))
    held = find(doc, node_id)
    rule = {"id": rule_id, "expr": expr, "message": message, "severity": severity}
    held["rules"] = [*(held.get("rules") or ()), rule]
    return Applied(doc, node_id)


def remove_rule(document: Mapping[str, Any], node_id: str, rule_id: str) -> Applied:
    rules = list_field(find(document, node_id), "rules")
    kept = [r for r in rules if isinstance(r, dict) and str(r.get("id")) != rule_id]
    if len(kept) == len(rules):
        raise OpError({"rule": gettext("That rule no longer exists.")})
    doc = copy.deepcopy(dict(document))
    find(doc, node_id)["rules"] = kept
    return Applied(doc, node_id)
