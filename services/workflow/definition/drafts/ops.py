"""Edits of a draft definition as pure functions: a document and one operation in, a new
document out (the input is never changed).

The editor works on the definition *dict*, like the definitions pages, because a draft is
allowed to be invalid while someone is building it: an operation refuses only what is wrong
on its own (a malformed or duplicate id, a target that does not exist, a transition a node type
cannot have), with a message per form field; whole-graph rules are the real validation's job
(``Validate`` on the page, and publishing). Transitions live in :mod:`.links`;
node-level properties, timers and rules in :mod:`.props`.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from core.i18n import N_, gettext

NODE_TYPES: Final = (
    "start",
    "validation",
    "approval",
    "user_task",
    "manual_task",
    "service_task",
    "integration",
    "notification",
    "timer",
    "exclusive",
    "inclusive",
    "parallel",
    "event_gateway",
    "call",
    "subprocess",
    "decision_table",
    "end",
)
"""The node types of ``docs/definition-format.md``, in the order the add form offers them."""

HUMAN: Final = frozenset({"approval", "user_task", "manual_task"})
IDENTIFIER: Final = re.compile(r"^[a-z][a-z0-9_]*$")
DOTTED: Final = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")
MAX_ID: Final = 64
MAX_NAME: Final = 200
MAX_EXPR: Final = 4000

Document = dict[str, Any]
Node = dict[str, Any]


class OpError(Exception):
    """The operation was refused; ``errors`` maps each form field to a sentence."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        super().__init__("the edit was refused: " + ", ".join(sorted(errors)))
        self.errors = dict(errors)


class UnknownNode(LookupError):
    """The node named in the address is not in the draft (the page maps it to 404)."""


@dataclass(frozen=True)
class Link:
    """One outgoing transition: ``key`` names it for ``disconnect``, ``label`` reads it out."""

    key: str
    label: str
    target: str


@dataclass(frozen=True)
class Removed:
    """A transition an edit took away (the page says which)."""

    source: str
    link: Link

    def __str__(self) -> str:
        return f"{self.source} {self.link.label} {self.link.target}"


@dataclass(frozen=True)
class Applied:
    """The new document, the node the page should return to, and what the edit removed."""

    document: Document
    focus: str | None
    removed: tuple[Removed, ...] = ()


# --- reading -------------------------------------------------------------------------------


def nodes_of(document: Mapping[str, Any]) -> list[Node]:
    nodes = document.get("nodes")
    return [n for n in nodes if isinstance(n, dict)] if isinstance(nodes, list) else []


def node_ids(document: Mapping[str, Any]) -> list[str]:
    return [str(n.get("id")) for n in nodes_of(document)]


def find(document: Mapping[str, Any], node_id: str) -> Node:
    for node in nodes_of(document):
        if node.get("id") == node_id:
            return node
    raise UnknownNode(node_id)


def label_of(key: str, kind: object = None) -> str:
    """How the page reads a transition out, from its key and its source's type (``kind``)."""
    field, _, rest = key.partition(".")
    if field == "next":
        waits = gettext("waits for") if kind == "event_gateway" else gettext("parallel branch to")
        return waits if rest else gettext("goes to")
    if field == "outcome":
        return gettext("outcome «%(outcome)s» to") % {"outcome": rest}
    if field == "branch":
        return gettext("condition %(n)s to") % {"n": int(rest) + 1}
    if field == "timer":
        return gettext("deadline «%(id)s» to") % {"id": rest}
    if field == "error":
        return gettext("business error «%(code)s» to") % {"code": rest.partition(".")[2]}
    return gettext("otherwise to")


def links(node: Mapping[str, Any]) -> list[Link]:
    """Every outgoing transition, in the order the version page lists them."""
    keyed: list[tuple[str, object]] = []
    nxt = node.get("next")
    if isinstance(nxt, str):
        keyed.append(("next", nxt))
    elif isinstance(nxt, list):
        keyed.extend((f"next.{i}", t) for i, t in enumerate(nxt))
    keyed.extend((f"outcome.{k}", v) for k, v in dict_field(node, "outcomes").items())
    keyed.extend((f"branch.{i}", b.get("next")) for i, b in enumerate(branches_of(node)))
    if isinstance(node.get("default"), str):
        keyed.append(("default", node["default"]))
    timed = [t for t in timers_of(node) if isinstance(t.get("next"), str)]
    keyed.extend((f"timer.{t.get('id')}", t["next"]) for t in timed)
    keyed.extend((f"error.{i}.{r.get('code')}", r.get("next")) for i, r in errors_of(node))
    return [Link(key, label_of(key, node.get("type")), str(target)) for key, target in keyed]


def dict_field(holder: Mapping[str, Any], field: str) -> dict[str, Any]:
    value = holder.get(field)
    return value if isinstance(value, dict) else {}


def list_field(holder: Mapping[str, Any], field: str) -> list[Any]:
    value = holder.get(field)
    return value if isinstance(value, list) else []


def branches_of(node: Mapping[str, Any]) -> list[dict[str, Any]]:
    branches = node.get("branches")
    return [b for b in branches if isinstance(b, dict)] if isinstance(branches, list) else []


def errors_of(node: Mapping[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """A service task's error routes that have a target, with their position."""
    routes = node.get("errors")
    found = enumerate(routes) if isinstance(routes, list) else enumerate([])
    return [(i, r) for i, r in found if isinstance(r, dict) and isinstance(r.get("next"), str)]


def timers_of(node: Mapping[str, Any]) -> list[dict[str, Any]]:
    timers = node.get("timers")
    return [t for t in timers if isinstance(t, dict)] if isinstance(timers, list) else []


# --- checks shared by the operations ---------------------------------------------------------


IDENTIFIER_MESSAGES: Final[Mapping[str, tuple[str, str]]] = {
    "node": (
        N_("The identifier is required."),
        N_(
            "The identifier must have lower-case letters, digits and _"
            " (starting with a letter, up to 64)."
        ),
    ),
    "new_id": (
        N_("The new identifier is required."),
        N_(
            "The new identifier must have lower-case letters, digits and _"
            " (starting with a letter, up to 64)."
        ),
    ),
    "outcome": (
        N_("The outcome is required."),
        N_(
            "The outcome must have lower-case letters, digits and _"
            " (starting with a letter, up to 64)."
        ),
    ),
    "timer": (
        N_("The identifier of the deadline is required."),
        N_(
            "The identifier of the deadline must have lower-case letters, digits and _"
            " (starting with a letter, up to 64)."
        ),
    ),
    "rule": (
        N_("The identifier of the rule is required."),
        N_(
            "The identifier of the rule must have lower-case letters, digits and _"
            " (starting with a letter, up to 64)."
        ),
    ),
}
"""What an identifier field says when it is empty or malformed, by the thing it names."""


def check_identifier(value: str, subject: str = "node") -> str | None:
    """A sentence (in the locale in force) if ``value`` is not a valid identifier."""
    missing, malformed = IDENTIFIER_MESSAGES[subject]
    if not value:
        return gettext(missing)
    if len(value) > MAX_ID or not IDENTIFIER.match(value):
        return gettext(malformed)
    return None


def check_dotted(value: str) -> str | None:
    if len(value) > 100 or not DOTTED.match(value):
        return gettext("Use a dotted lower-case name, such as diario.revisao.")
    return None


def target_error(document: Mapping[str, Any], target: str) -> str | None:
    if not target:
        return gettext("Choose the target step.")
    if target not in node_ids(document):
        return gettext("The step %(node)s is not in this draft.") % {"node": target}
    return None


def refuse_if(errors: Mapping[str, str | None]) -> None:
    found = {k: v for k, v in errors.items() if v}
    if found:
        raise OpError(found)


# --- nodes -----------------------------------------------------------------------------------


def add_node(
    document: Mapping[str, Any], node_id: str, node_type: str, name: str = "", after: str = ""
) -> Applied:
    """A new node of ``node_type`` right after ``after`` (at the end when empty)."""
    ids = node_ids(document)
    id_error = check_identifier(node_id)
    if id_error is None and node_id in ids:
        id_error = gettext("There is already a step %(node)s.") % {"node": node_id}
    refuse_if(
        {
            "node_id": id_error,
            "node_type": None if node_type in NODE_TYPES else gettext("Choose a type of step."),
            "name": gettext("Name too long (up to 200).") if len(name) > MAX_NAME else None,
            "after": gettext("The step %(node)s does not exist.") % {"node": after}
            if after and after not in ids
            else None,
        }
    )
    doc = copy.deepcopy(dict(document))
    node: Node = {"id": node_id, "type": node_type}
    if name:
        node["name"] = name
    nodes = nodes_of(doc)
    nodes.insert(ids.index(after) + 1 if after else len(nodes), node)
    doc["nodes"] = nodes
    return Applied(doc, node_id)


def rename_node(document: Mapping[str, Any], old: str, new: str) -> Applied:
    """Change a node's id and every reference to it (``next``, ``outcomes``, ``branches``,
    ``default``, ``timers[].next``, ``errors[].next``, ``policy.exclude_completers_of``)."""
    find(document, old)
    error = check_identifier(new, "new_id")
    if error is None and new == old:
        error = gettext("The new identifier is the same as the current one.")
    if error is None and new in node_ids(document):
        error = gettext("There is already a step %(node)s.") % {"node": new}
    refuse_if({"new_id": error})
    doc = copy.deepcopy(dict(document))
    for node in nodes_of(doc):
        if node.get("id") == old:
            node["id"] = new
        _map_references(node, lambda target: new if target == old else target)
    return Applied(doc, new)


def remove_node(document: Mapping[str, Any], node_id: str) -> Applied:
    """Drop a node and every transition into it; ``removed`` says which transitions went."""
    ids = node_ids(document)
    find(document, node_id)
    doc = copy.deepcopy(dict(document))
    doc["nodes"] = [n for n in nodes_of(doc) if n.get("id") != node_id]
    removed: list[Removed] = []
    for node in doc["nodes"]:
        for link in _map_references(node, lambda target: None if target == node_id else target):
            removed.append(Removed(str(node.get("id")), link))
    position = ids.index(node_id)
    rest = [i for i in ids if i != node_id]
    focus = rest[max(position - 1, 0)] if rest else None
    return Applied(doc, focus, tuple(removed))


def move_node(document: Mapping[str, Any], node_id: str, direction: str) -> Applied:
    """One place up or down in the list (presentation order only); at an edge, no change."""
    find(document, node_id)
    if direction not in ("up", "down"):
        raise OpError({"direction": gettext("Choose up or down.")})
    doc = copy.deepcopy(dict(document))
    nodes = nodes_of(doc)
    here = [n.get("id") for n in nodes].index(node_id)
    there = here - 1 if direction == "up" else here + 1
    if 0 <= there < len(nodes):
        nodes[here], nodes[there] = nodes[there], nodes[here]
    doc["nodes"] = nodes
    return Applied(doc, node_id)


def _map_references(node: Node, change: Callable[[str], str | None]) -> list[Link]:
    """Apply ``change`` to every node id this node points at (``None`` drops it); returns the
    transitions dropped (``exclude_completers_of`` is updated, not reported: no transition)."""
    before = {link.key: link for link in links(node)}
    dropped: list[str] = []
    nxt = node.get("next")
    if isinstance(nxt, str):
        _set_or_drop(node, "next", change(nxt), dropped, "next")
    elif isinstance(nxt, list):
        kept = []
        for i, target in enumerate(nxt):
            new = change(str(target))
            if new is None:
                dropped.append(f"next.{i}")
            else:
                kept.append(new)
        node["next"] = kept
    outcomes = node.get("outcomes")
    if isinstance(outcomes, dict):
        mapped = {k: change(str(v)) for k, v in outcomes.items()}
        dropped.extend(f"outcome.{k}" for k, v in mapped.items() if v is None)
        node["outcomes"] = {k: v for k, v in mapped.items() if v is not None}
    if isinstance(node.get("branches"), list):
        kept_branches = []
        for i, branch in enumerate(node["branches"]):
            new = change(str(branch.get("next"))) if isinstance(branch, dict) else None
            if new is None:
                dropped.append(f"branch.{i}")
            else:
                kept_branches.append({**branch, "next": new})
        node["branches"] = kept_branches
    if isinstance(node.get("default"), str):
        _set_or_drop(node, "default", change(node["default"]), dropped, "default")
    for timer in timers_of(node):
        if isinstance(timer.get("next"), str):
            _set_or_drop(timer, "next", change(timer["next"]), dropped, f"timer.{timer.get('id')}")
    gone = set()
    for i, route in errors_of(node):
        new = change(route["next"])
        if new is None:
            gone.add(i)
            dropped.append(f"error.{i}.{route.get('code')}")
        else:
            route["next"] = new
    if gone:
        drop_routes(node, gone)
    policy = node.get("policy")
    if isinstance(policy, dict) and isinstance(policy.get("exclude_completers_of"), list):
        mapped_ids = [change(str(i)) for i in policy["exclude_completers_of"]]
        policy["exclude_completers_of"] = [i for i in mapped_ids if i is not None]
    return [before[key] for key in dropped if key in before]


def _set_or_drop(
    holder: dict[str, Any], field: str, value: str | None, dropped: list[str], key: str
) -> None:
    if value is None:
        del holder[field]
        dropped.append(key)
    else:
        holder[field] = value


def drop_routes(node: dict[str, Any], positions: set[int]) -> None:
    """A route without a target means nothing: it goes, and ``errors`` with the last one."""
    kept = [r for i, r in enumerate(node["errors"]) if i not in positions]
    if kept:
        node["errors"] = kept
    else:
        del node["errors"]
