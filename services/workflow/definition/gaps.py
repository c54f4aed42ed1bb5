"""What a definition still lacks before it can be published, every gap at once.

A file drawn in another modeler, or a draft being built, is usually missing Tramita-only data:
who works on a human task (``queue``), which registered integration a service step calls
(``handler``), a form key, the name a clerk reads, the protocol prefix. Parsing stops at the
first of them (the format is a schema), so the designer would fix them one per round; this pass
lists them all, each against the JSON path of its node, with the value an importer suggested
when it found one (:class:`Suggestion`). Suggestions are never applied silently: the designer
confirms them (:func:`accept`), in the draft editor or with ``--accept-suggestions``.

The steps of an embedded sub-process are looked at too, at any depth: a gap there has the
JSON path the definition check gives (``nodes[1] (analise).nodes[1] (conferir).queue``) and
names the step by its chain, as the editor does (``analise \u203a conferir``); a suggestion for
it carries the ``scope`` (the sub-process ids) that holds its node.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import msgspec

from contracts.errors import FieldError

from .drafts.scopes import MAX_DEPTH, step_label
from .messages import N_

GAPS: Final = N_(
    "The definition still lacks Tramita data; each gap names the BPMN element where it is."
)
"""The ``detail`` of a refusal listing gaps (a msgid)."""
DOTTED: Final = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")
FORM: Final = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*(@[1-9][0-9]*)?$")
PREFIX: Final = re.compile(r"^[A-Z]{2,10}$")
HUMAN: Final = frozenset({"approval", "user_task", "manual_task"})
HANDLED: Final = frozenset({"service_task", "integration", "notification"})
WITH_FORM: Final = frozenset({"approval", "user_task"})

#: field → (what the sentence calls it, the pattern a value must match).
FIELDS: Final[dict[str, tuple[str, re.Pattern[str] | None]]] = {
    "queue": (N_("a queue (the dotted name of who works on it, such as legal.review)"), DOTTED),
    "handler": (N_("a handler (the dotted name of a registered integration)"), DOTTED),
    "form": (N_("a form key (such as permit.request or permit.request@2)"), FORM),
    "name": (N_("a name people read"), None),
    "protocol_prefix": (N_("a protocol prefix (2 to 10 capital letters)"), PREFIX),
    "key": (N_("a key (a dotted name)"), DOTTED),
}


class Suggestion(msgspec.Struct, frozen=True, kw_only=True):
    """A value another tool's extension meant for a field, for the designer to confirm.

    ``node`` is the node id (``None``: the definition itself) and ``scope`` the ids of the
    embedded sub-processes that hold it, outermost first (empty: the definition's own nodes);
    ``value`` is ``None`` when the original (``source`` = ``original``) could not be turned
    into a valid value, so the gap shows the original for the designer to translate by hand.
    """

    node: str | None
    field: str
    source: str
    original: str
    value: str | None = None
    scope: tuple[str, ...] = ()


def _blank(value: object) -> bool:
    return not isinstance(value, str) or not value.strip()


#: (missing, invalid, suggested, unmapped) sentences, for a node and for the definition.
_NODE_TEMPLATES: Final = (
    N_("Node `%(node)s` needs %(what_msg)s."),
    N_("Node `%(node)s` needs %(what_msg)s; `%(value)s` is not one."),
    N_(
        "Node `%(node)s` needs %(what_msg)s; suggested: `%(value)s` "
        '(from %(source)s="%(original)s").'
    ),
    N_('Node `%(node)s` needs %(what_msg)s; %(source)s="%(original)s" cannot be one, choose it.'),
)
_HEADER_TEMPLATES: Final = (
    N_("The definition needs %(what_msg)s."),
    N_("The definition needs %(what_msg)s; `%(value)s` is not one."),
    N_(
        "The definition needs %(what_msg)s; suggested: `%(value)s` "
        '(from %(source)s="%(original)s").'
    ),
    N_('The definition needs %(what_msg)s; %(source)s="%(original)s" cannot be one, choose it.'),
)
_CODES: Final = ("gap.missing", "gap.invalid", "gap.suggested", "gap.unmapped")


def _gap(
    path: str, field: str, node: str | None, value: object, hint: Suggestion | None
) -> FieldError | None:
    """The gap of one field, or ``None`` when the value is present and well formed."""
    what, pattern = FIELDS[field]
    params: dict[str, str | int] = {"what_msg": what}
    if node is not None:
        params["node"] = node
    if not _blank(value):
        if pattern is None or (isinstance(value, str) and pattern.fullmatch(value)):
            return None
        kind, params["value"] = 1, str(value)
    elif hint is not None:
        kind = 2 if hint.value is not None else 3
        params.update(source=hint.source, original=hint.original)
        if hint.value is not None:
            params["value"] = hint.value
    else:
        kind = 0
    templates = _NODE_TEMPLATES if node is not None else _HEADER_TEMPLATES
    return FieldError.of(path, _CODES[kind], templates[kind], **params)


def _wanted(node_type: object) -> tuple[str, ...]:
    if node_type in HUMAN:
        return ("name", "queue", *(("form",) if node_type in WITH_FORM else ()))
    if node_type in HANDLED:
        return ("handler",)
    return ()


def gaps_of(
    document: Mapping[str, Any], suggestions: Sequence[Suggestion] = ()
) -> list[FieldError]:
    """Every missing or malformed Tramita-only field of ``document``, in document order, the
    steps of its sub-processes included where they stand.

    A form is optional in the format, so a missing form is a gap only when the source file
    named one (a suggestion exists for it): leaving it out would silently drop that form.
    """
    hints = {(s.scope, s.node, s.field): s for s in suggestions}
    errors: list[FieldError] = []
    for field in ("key", "name", "protocol_prefix"):
        found = _gap(field, field, None, document.get(field), hints.get(((), None, field)))
        if found is not None:
            errors.append(found)
    _node_gaps(document, (), "", hints, errors)
    return errors


def _node_gaps(
    holder: Mapping[str, Any],
    scope: tuple[str, ...],
    prefix: str,
    hints: Mapping[tuple[tuple[str, ...], str | None, str], Suggestion],
    errors: list[FieldError],
) -> None:
    """The gaps of the nodes of ``holder`` (the definition, or the sub-process at ``scope``)."""
    nodes = holder.get("nodes")
    for index, node in enumerate(nodes if isinstance(nodes, list) else []):
        if not isinstance(node, Mapping):
            continue
        node_id = str(node.get("id"))
        path = f"{prefix}nodes[{index}] ({node_id})"
        for field in _wanted(node.get("type")):
            hint = hints.get((scope, node_id, field))
            if field == "form" and field not in node and hint is None:
                continue
            name = step_label((*scope, node_id))
            found = _gap(f"{path}.{field}", field, name, node.get(field), hint)
            if found is not None:
                errors.append(found)
        if node.get("type") == "subprocess" and len(scope) < MAX_DEPTH:
            _node_gaps(node, (*scope, node_id), f"{path}.", hints, errors)


def _holder(document: Mapping[str, Any], hint: Suggestion) -> Mapping[str, Any] | None:
    """The mapping a suggestion's field belongs to: the definition, or its node in its scope."""
    holder: Mapping[str, Any] | None = document
    for node_id in (*hint.scope, hint.node) if hint.node is not None else ():
        nodes = holder.get("nodes") if holder is not None else None
        found = [n for n in nodes or [] if isinstance(n, Mapping) and n.get("id") == node_id]
        holder = found[0] if isinstance(nodes, list) and found else None
    return holder


def pending(document: Mapping[str, Any], suggestions: Iterable[Suggestion]) -> list[Suggestion]:
    """The suggestions that still have a value to offer: their field is empty."""
    result = []
    for hint in suggestions:
        holder = _holder(document, hint)
        if hint.value is not None and holder is not None and _blank(holder.get(hint.field)):
            result.append(hint)
    return result


def accept(document: Mapping[str, Any], suggestions: Iterable[Suggestion]) -> dict[str, Any]:
    """A copy of ``document`` with every pending suggestion written into its empty field."""
    result = copy.deepcopy(dict(document))
    for hint in pending(result, suggestions):
        holder = _holder(result, hint)
        assert isinstance(holder, dict)  # deep-copied: every mapping of the copy is a dict
        holder[hint.field] = hint.value
    return result
