"""Transitions of a draft as pure edits: connect one node to another in the field its type
uses (``next``, an outcome, a branch, a default, a fork), and disconnect one transition.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

from core.i18n import gettext
from services.workflow.definition.drafts.ops import (
    MAX_EXPR,
    MAX_NAME,
    Applied,
    Link,
    Node,
    OpError,
    Removed,
    branches_of,
    check_identifier,
    dict_field,
    drop_routes,
    find,
    links,
    refuse_if,
    target_error,
    timers_of,
)

GATEWAYS: Final = ("exclusive", "inclusive")
"""The gateways whose transitions carry conditions and a default path."""
EVENTS: Final = ("timer", "user_task", "manual_task")
"""What an event-based gateway waits for: a timer, or a task a message completes."""


def connect(
    document: Mapping[str, Any],
    source: str,
    target: str,
    outcome: str = "",
    condition: str = "",
    outcome_name: str = "",
    default: bool = False,
) -> Applied:
    """Add a transition ``source → target``, in the field the source's type uses.

    A gateway with conditions takes a branch when a ``condition`` is given; an exclusive
    gateway takes its ``default`` otherwise, an inclusive one when the transition is marked
    ``default`` (taken only when no condition holds) and else its one ``next`` (an inclusive
    join's way out; a gateway forks or joins, never both). An approval needs an ``outcome``; a
    user task takes either an outcome or its one ``next``; a parallel gateway adds a branch to
    its fork; an event-based gateway adds a wait to its list ``next`` (a timer, or a user or
    manual task without deadlines, which a message completes); everything else has one
    ``next``, which is replaced (the replaced transition is reported in ``removed``, as a
    replaced default is). An ``outcome_name`` is what people read on the outcome's button
    (``outcome_names``).
    """
    outcome_name = outcome_name.strip()
    kind = str(find(document, source).get("type"))
    errors: dict[str, str | None] = {"target": target_error(document, target)}
    if kind == "end":
        errors["target"] = gettext("An end step has no outgoing transitions.")
    elif kind == "event_gateway" and errors["target"] is None:
        errors["target"] = _event_error(find(document, source), find(document, target))
    errors["outcome"] = _outcome_error(kind, outcome)
    if outcome_name and not outcome:
        errors["outcome_name"] = gettext("Only an outcome has a name: give the outcome too.")
    elif len(outcome_name) > MAX_NAME:
        errors["outcome_name"] = gettext("Name too long (up to 200).")
    if condition and kind not in GATEWAYS:
        errors["condition"] = gettext(
            "Only an exclusive or inclusive gateway has conditions on its transitions."
        )
    elif len(condition) > MAX_EXPR:
        errors["condition"] = gettext("Condition too long (up to 4000 characters).")
    errors["default"] = _default_error(kind, condition, default)
    refuse_if(errors)
    doc = copy.deepcopy(dict(document))
    node = find(doc, source)
    replaced = _link_into(node, kind, target, outcome, condition, default)
    if outcome_name:
        node["outcome_names"] = {**dict_field(node, "outcome_names"), outcome: outcome_name}
    return Applied(doc, source, tuple(Removed(source, link) for link in replaced))


def _default_error(kind: str, condition: str, default: bool) -> str | None:
    if not default:
        return None
    if kind not in GATEWAYS:
        return gettext("Only an exclusive or inclusive gateway has a default path.")
    if condition:
        return gettext("The default path has no condition: leave the condition empty.")
    return None


def _event_error(gateway: Node, caught: Node) -> str | None:
    """An event-based gateway's way out waits alone for one event (validation says the rest:
    that the gateway is its only way in, and that it has at least two)."""
    target = str(caught.get("id"))
    if caught.get("type") not in EVENTS:
        return gettext(
            "An event-based gateway waits for timers and for user or manual tasks that a"
            " message completes: %(node)s is not one of them."
        ) % {"node": target}
    if timers_of(caught):
        return gettext(
            "%(node)s has deadlines of its own: remove them, the gateway's other ways out"
            " are its timers."
        ) % {"node": target}
    if target in _waits(gateway):
        return gettext("There is already a transition to %(node)s.") % {"node": target}
    return None


def _waits(node: Node) -> list[str]:
    nxt = node.get("next")
    if isinstance(nxt, str):
        return [nxt]
    return [str(t) for t in nxt] if isinstance(nxt, list) else []


def _outcome_error(kind: str, outcome: str) -> str | None:
    if kind == "approval" and not outcome:
        return gettext("An approval leaves by outcomes: give the outcome (such as approve).")
    if outcome and kind not in ("approval", "user_task"):
        return gettext("Only approvals and user tasks have outcomes.")
    if outcome:
        return check_identifier(outcome, "outcome")
    return None


def _link_into(
    node: Node, kind: str, target: str, outcome: str, condition: str, default: bool
) -> list[Link]:
    """Write the transition; returns the transitions it replaced."""
    if kind in GATEWAYS:
        return _gateway_into(node, kind, target, condition, default)
    existing = {link.key: link for link in links(node)}
    if outcome:
        if isinstance(node.get("next"), str):
            taken = gettext(
                "This task already goes to %(node)s: remove that transition before using outcomes."
            ) % {"node": node["next"]}
            raise OpError({"outcome": taken})
        node["outcomes"] = {**dict_field(node, "outcomes"), outcome: target}
        key = f"outcome.{outcome}"
        return [existing[key]] if key in existing else []
    if kind == "user_task" and node.get("outcomes"):
        raise OpError({"outcome": gettext("This task leaves by outcomes: give the outcome.")})
    if kind == "parallel":
        return _fork_into(node, target)
    if kind == "event_gateway":
        node["next"] = [*_waits(node), target]  # always a list, as the format wants
        return []
    node["next"] = target
    return [existing["next"]] if "next" in existing else []


def _gateway_into(node: Node, kind: str, target: str, condition: str, default: bool) -> list[Link]:
    """A branch (with a condition), the default, or an inclusive join's one ``next``."""
    existing = {link.key: link for link in links(node)}
    if kind == "inclusive":
        _inclusive_role(node, forking=bool(condition or default))
    if condition:
        node["branches"] = [*branches_of(node), {"when": condition, "next": target}]
        return []
    key = "default" if kind == "exclusive" or default else "next"
    node[key] = target
    return [existing[key]] if key in existing else []


def _inclusive_role(node: Node, *, forking: bool) -> None:
    """An inclusive gateway forks (branches, default) or joins (one ``next``), never both."""
    if forking and isinstance(node.get("next"), str):
        joined = gettext(
            "This gateway is a join that goes to %(node)s: remove that transition before"
            " giving it conditions or a default path."
        ) % {"node": node["next"]}
        raise OpError({"condition": joined})
    if not forking and (branches_of(node) or isinstance(node.get("default"), str)):
        raise OpError(
            {
                "condition": gettext(
                    "This gateway forks by conditions: give the condition, or mark the"
                    " transition as the default path."
                )
            }
        )


def _fork_into(node: Node, target: str) -> list[Link]:
    nxt = node.get("next")
    if nxt is None:
        node["next"] = target
    elif isinstance(nxt, str) and nxt != target:
        node["next"] = [nxt, target]
    elif isinstance(nxt, list) and target not in nxt:
        node["next"] = [*nxt, target]
    else:
        raise OpError(
            {"target": gettext("There is already a transition to %(node)s.") % {"node": target}}
        )
    return []


def disconnect(document: Mapping[str, Any], source: str, key: str) -> Applied:
    """Remove one outgoing transition, named by its ``Link.key``."""
    found = {link.key: link for link in links(find(document, source))}
    if key not in found:
        raise OpError({"link": gettext("That transition no longer exists.")})
    doc = copy.deepcopy(dict(document))
    node = find(doc, source)
    field, _, rest = key.partition(".")
    if field == "next" and rest:
        node["next"] = [t for i, t in enumerate(node["next"]) if i != int(rest)]
    elif field in ("next", "default"):
        del node[field]
    elif field == "outcome":
        node["outcomes"] = {k: v for k, v in node["outcomes"].items() if k != rest}
        names = {k: v for k, v in dict_field(node, "outcome_names").items() if k != rest}
        if names:
            node["outcome_names"] = names
        else:
            node.pop("outcome_names", None)
    elif field == "branch":
        node["branches"] = [b for i, b in enumerate(node["branches"]) if i != int(rest)]
    elif field == "error":
        drop_routes(node, {int(rest.partition(".")[0])})
    else:
        timer = next(t for t in timers_of(node) if str(t.get("id")) == rest)
        del timer["next"]
    return Applied(doc, source, (Removed(source, found[key]),))
