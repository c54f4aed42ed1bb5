"""The editor's forms: which fields each node action reads, how a refused edit is shown again,
and the per-node view the draft page renders.

Every node action is one POST of one form; its fields are read as text and handed to one pure
operation of ``definition.drafts`` (:mod:`~services.workflow.definition.drafts.ops`,
:mod:`~services.workflow.definition.drafts.props`). CEL text (conditions, rules, ``until``)
is checked for syntax here with the rules package, so a malformed condition is refused on its
own field; whether its variables exist is the real validation's question.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import quote

from contracts.errors import FieldError, RuleError
from core.i18n import N_, gettext
from services.workflow.definition.drafts.activities import (
    CALL_FIELDS,
    MULTI_FIELDS,
    pairs_of,
    set_call,
    set_multi,
    special_values,
)
from services.workflow.definition.drafts.error_routes import add_error
from services.workflow.definition.drafts.links import connect, disconnect
from services.workflow.definition.drafts.ops import (
    HUMAN,
    Applied,
    Document,
    Link,
    OpError,
    find,
    label_of,
    links,
    list_field,
    move_node,
    nodes_of,
    remove_node,
    rename_node,
    timers_of,
)
from services.workflow.definition.drafts.props import (
    add_rule,
    add_timer,
    current_properties,
    property_fields,
    remove_rule,
    remove_timer,
    set_condition,
    set_properties,
)
from services.workflow.rules import compile_expression
from services.workflow.ui.definition_views import NodeView, swimlanes

SYNTAX_CODES: Final = frozenset({"syntax", "too_long", "too_deep"})
HIDDEN: Final = frozenset({"link", "timer", "rule", "direction", "index"})
"""Fields the page sends as hidden inputs: their errors link to the node, not to a field."""

LABELS: Final[Mapping[str, str]] = {
    "name": N_("Name"),
    "queue": N_("Queue"),
    "form_key": N_("Form (key)"),
    "form_version": N_("Form version"),
    "handler": N_("Handler"),
    "compensation": N_("Compensation"),
    "template": N_("Template"),
    "pending_queue": N_("Pending queue"),
    "duration": N_("Duration"),
    "business_days": N_("Business days"),
    "until": N_("Until (expression)"),
    "result": N_("Result"),
    "compensate": N_("Undo the completed steps (compensation)"),
    "new_id": N_("New identifier"),
    "target": N_("Target"),
    "outcome": N_("Outcome"),
    "condition": N_("Condition"),
    "default": N_("Default path"),
    "when": N_("Condition"),
    "timer_id": N_("Identifier of the deadline"),
    "escalate_to": N_("Escalate to the queue"),
    "rule_id": N_("Identifier of the rule"),
    "expr": N_("Expression"),
    "message": N_("Message"),
    "node_id": N_("Identifier"),
    "node_type": N_("Type"),
    "after": N_("Insert after"),
    "protocol_prefix": N_("Protocol prefix"),
    "file": N_("BPMN file"),
    "description": N_("Description"),
    "key": N_("Key of the definition"),
    "version": N_("Version"),
    "definition": N_("Process to call"),
    "inputs": N_("What the called process starts with"),
    "outputs": N_("What comes back"),
    "over": N_("List to go over"),
    "item": N_("Name of each item"),
    "mode": N_("How the tasks open"),
    "complete_when": N_("Complete early when"),
    "error_code": N_("Code of the business error"),
    "store": N_("Key that receives the error"),
}

NodeEdit = Callable[[Document, str, Mapping[str, str]], Applied]


def expression_problem(text: str) -> str | None:
    """A sentence if the CEL text does not even parse (variables are checked on validation)."""
    try:
        compile_expression(text, variables=(), where="expression", expect_bool=False)
    except RuleError as exc:
        syntax = [e for e in exc.errors if e.code in SYNTAX_CODES]
        if syntax:
            return gettext("Malformed expression: %(problem)s") % {"problem": syntax[0].message}
    return None


def _checked(values: Mapping[str, str], *names: str) -> None:
    problems = {n: p for n in names if values.get(n) and (p := expression_problem(values[n]))}
    if problems:
        raise OpError(problems)


def _connect(doc: Document, node: str, v: Mapping[str, str]) -> Applied:
    _checked(v, "condition")
    return connect(
        doc,
        node,
        v.get("target", ""),
        v.get("outcome", ""),
        v.get("condition", ""),
        v.get("outcome_name", ""),
        default=v.get("default") == "true",
    )


def _condition(doc: Document, node: str, v: Mapping[str, str]) -> Applied:
    _checked(v, "when")
    return set_condition(doc, node, v.get("index", ""), v.get("when", ""))


def _properties(doc: Document, node: str, v: Mapping[str, str]) -> Applied:
    """The type's properties; a user task's also carry its "several instances" fieldset, and
    the refusals of both come back together."""
    _checked(v, "until", "over", "complete_when")
    if find(doc, node).get("type") != "user_task":
        return set_properties(doc, node, v)
    errors: dict[str, str] = {}
    try:
        doc = set_properties(doc, node, v).document
    except OpError as exc:
        errors.update(exc.errors)
    try:
        multi = set_multi(doc, node, v)
    except OpError as exc:
        errors.update(exc.errors)
    if errors:
        raise OpError(errors)
    return multi


def call_edit(published: Mapping[str, Collection[int]]) -> NodeEdit:
    """The call form's edit, checking the called definition against ``published``."""

    def edit(doc: Document, node: str, v: Mapping[str, str]) -> Applied:
        problems = [
            gettext("Line %(n)s: %(problem)s") % {"n": number, "problem": problem}
            for number, _, value in pairs_of(v.get("inputs", ""))
            if value and (problem := expression_problem(value))
        ]
        if problems:
            raise OpError({"inputs": problems[0]})
        return set_call(doc, node, v, published)

    return edit


def _add_rule(doc: Document, node: str, v: Mapping[str, str]) -> Applied:
    _checked(v, "expr")
    return add_rule(doc, node, v)


PROPERTY_FIELDS: Final = (
    "name",
    "queue",
    "form_key",
    "form_version",
    "handler",
    "compensation",
    "template",
    "pending_queue",
    "duration",
    "business_days",
    "until",
    "result",
    "compensate",
    *MULTI_FIELDS,
)
ACTIONS: Final[Mapping[str, tuple[tuple[str, ...], NodeEdit]]] = {
    "properties": (PROPERTY_FIELDS, _properties),
    "rename": (("new_id",), lambda d, n, v: rename_node(d, n, v.get("new_id", ""))),
    "remove": ((), lambda d, n, v: remove_node(d, n)),
    "move": (("direction",), lambda d, n, v: move_node(d, n, v.get("direction", ""))),
    "connect": (("target", "outcome", "outcome_name", "condition", "default"), _connect),
    "disconnect": (("link",), lambda d, n, v: disconnect(d, n, v.get("link", ""))),
    "condition": (("index", "when"), _condition),
    "add-timer": (
        ("timer_id", "duration", "business_days", "interrupting", "target", "escalate_to"),
        add_timer,
    ),
    "add-error": (("error_code", "target", "store"), add_error),
    "remove-timer": (("timer",), lambda d, n, v: remove_timer(d, n, v.get("timer", ""))),
    "add-rule": (("rule_id", "expr", "message", "severity"), _add_rule),
    "remove-rule": (("rule",), lambda d, n, v: remove_rule(d, n, v.get("rule", ""))),
    "call": (CALL_FIELDS, call_edit({})),  # the page passes the catalog: see call_edit
}
"""Node actions by the last segment of ``POST .../nodes/{node}/{action}``."""


_REMOVED: Final = re.compile(
    r"^([a-z][a-z0-9_]*):(next(?:\.\d+)?|outcome\.[a-z][a-z0-9_]*|branch\.\d+|default"
    r"|timer\.[a-z][a-z0-9_]*|error\.\d+\.(?:[a-z][a-z0-9_]*|\*)):([a-z][a-z0-9_]*)$"
)


def back_to(page_url: str, msg: str, applied: Applied, scope: Sequence[str] = ()) -> str:
    """Post/redirect/get to the edited node (in its scope); removed transitions travel as keys
    only."""
    query = f"msg={msg}" + (f"&scope={'.'.join(scope)}" if scope else "")
    if applied.focus:
        query += f"&node={applied.focus}"
    if applied.removed:
        removed = ",".join(f"{r.source}:{r.link.key}:{r.link.target}" for r in applied.removed)
        query += f"&removed={quote(removed)}"
    anchor = f"#node-{applied.focus}" if applied.focus else ""
    return f"{page_url}?{query}{anchor}"


def removed_from_query(raw: str | None, document: Mapping[str, Any] | None = None) -> list[str]:
    """Rebuilt from keys (never echoed): a crafted link cannot put words on the page; the
    draft tells what a source is (an event gateway's ``next.0`` is a wait, not a branch)."""
    types = {str(n.get("id")): n.get("type") for n in nodes_of(document or {})}
    found = []
    for item in (raw or "").split(","):
        match = _REMOVED.match(item)
        if match:
            source, key, target = match.groups()
            found.append(f"{source} {label_of(key, types.get(source))} {target}")
    return found


def read_values(form: Any, fields: Sequence[str]) -> dict[str, str]:
    """The submitted text of ``fields`` (stripped of surrounding blanks, never ``None``)."""
    return {f: str(form.get(f) or "").strip() for f in fields}


# --- a refused edit, shown again -------------------------------------------------------------


@dataclass(frozen=True)
class Failed:
    """The form that was refused (``prefix`` names it in DOM ids), what was typed, and why."""

    prefix: str
    node: str | None
    values: Mapping[str, str]
    errors: Mapping[str, str] = field(default_factory=dict)
    order: tuple[str, ...] = ()

    @property
    def first(self) -> str | None:
        """The first invalid visible field, which gets ``autofocus``."""
        return next((f for f in self.order if f in self.errors and f not in HIDDEN), None)

    @property
    def anchor(self) -> str:
        """Where the refused form is: its first visible field, else its node."""
        visible = next((f for f in self.order if f not in HIDDEN), None)
        if visible is not None:
            return f"#f-{self.prefix}-{visible}"
        return f"#node-{self.node}" if self.node else "#main"

    def summary(self) -> list[tuple[str, str, str]]:
        """``(href, label, message)`` per error, in form order, for the ``role=alert`` box."""
        ordered = [f for f in self.order if f in self.errors]
        ordered += [f for f in self.errors if f not in ordered]
        anchor = f"#node-{self.node}" if self.node else "#main"
        return [
            (
                anchor if f in HIDDEN else f"#f-{self.prefix}-{f}",
                gettext(LABELS[f]) if f in LABELS else f,
                self.errors[f],
            )
            for f in ordered
        ]


def prefix_of(node: str, action: str, values: Mapping[str, str]) -> str:
    """Several forms of one action may sit on a node (one per branch): the index tells them
    apart in DOM ids."""
    if action == "condition":
        return f"{node}-{action}-{values.get('index', '')}"
    return f"{node}-{action}"


# --- the draft page's nodes ------------------------------------------------------------------


@dataclass(frozen=True)
class EditorNode:
    view: NodeView
    raw: Mapping[str, Any]
    links: list[Link]
    properties: tuple[str, ...]
    values: dict[str, str]
    branches: Sequence[Mapping[str, Any]]
    timers: Sequence[Mapping[str, Any]]
    rules: Sequence[Mapping[str, Any]]
    first: bool
    last: bool

    @property
    def human(self) -> bool:
        return self.view.type in HUMAN


def editor_nodes(
    document: Mapping[str, Any], errors: Mapping[str, list[FieldError]] | None = None
) -> list[EditorNode]:
    """The draft's nodes in list order, each with its current values for the edit forms."""
    views = sorted(
        (view for lane in swimlanes(document, errors) for view in lane.nodes),
        key=lambda v: v.position,
    )
    raw = nodes_of(document)
    return [
        EditorNode(
            view=view,
            raw=node,
            links=links(node),
            properties=property_fields(view.type),
            values={**current_properties(node), **special_values(node)},
            branches=[b for b in list_field(node, "branches") if isinstance(b, Mapping)],
            timers=timers_of(node),
            rules=[r for r in list_field(node, "rules") if isinstance(r, Mapping)],
            first=i == 0,
            last=i == len(raw) - 1,
        )
        for i, (view, node) in enumerate(zip(views, raw, strict=True))
    ]
