"""The draft page of one scope: the definition's own steps, or those of an embedded sub-process
opened from it (``?scope=analise`` or, nested, ``analise.revisao``).

The page of a scope shows its steps with the same forms as the top level; every form posts
the scope back (a hidden field) so the edit applies inside it
(:func:`~services.workflow.definition.drafts.scopes.in_scope`). The definition check's
problems are placed by the chain of steps their path names: beside the step when it is in
this scope, otherwise listed with the chain (``analise \u203a conferir``) and a link to the page
of the scope that holds it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from contracts.errors import FieldError, NotFound
from core.i18n import localized
from services.workflow.definition.drafts.ops import UnknownNode
from services.workflow.definition.drafts.scopes import (
    Scope,
    parse_scope,
    scope_node,
    scope_text,
    step_label,
    steps_of_path,
)
from services.workflow.definition.gaps import Suggestion


@dataclass(frozen=True)
class Elsewhere:
    """A problem of a step outside this scope: where it is and how to get there."""

    label: str
    href: str
    message: str


@dataclass(frozen=True)
class ScopeView:
    """Which scope the page shows, the way back up (``crumbs``) and its placed problems."""

    path: Scope
    name: str
    crumbs: list[tuple[str, str]]
    by_node: dict[str, list[FieldError]] = field(default_factory=dict)
    general: list[FieldError] = field(default_factory=list)
    elsewhere: list[Elsewhere] = field(default_factory=list)

    @property
    def text(self) -> str:
        return scope_text(self.path)

    @property
    def query(self) -> str:
        """What a link or redirect to this scope's page appends (``&scope=...``, or nothing)."""
        return f"&scope={self.text}" if self.path else ""


def requested_scope(raw: str | None) -> Scope:
    """The scope a page address or a form names; one that is not a sub-process is a 404."""
    try:
        return parse_scope(raw)
    except UnknownNode as exc:
        raise NotFound("unknown sub-process in this draft", scope=str(exc)) from exc


def holder_of(document: Mapping[str, Any], scope: Scope) -> Mapping[str, Any]:
    """The document (empty scope) or the sub-process whose steps the page shows."""
    try:
        return scope_node(document, scope)
    except UnknownNode as exc:
        raise NotFound("unknown sub-process in this draft", scope=scope_text(scope)) from exc


def suggestion_scope(document: Mapping[str, Any], chosen: Sequence[Suggestion]) -> Scope:
    """Where accepting ``chosen`` returns: the page of the sub-process holding the one step it
    fills (the step's own scope), else the top level (several suggestions, one of the
    definition itself, or a sub-process the draft no longer has)."""
    if len(chosen) != 1 or not chosen[0].scope:
        return ()
    try:
        scope_node(document, chosen[0].scope)
    except UnknownNode:
        return ()
    return chosen[0].scope


def scope_view(
    document: Mapping[str, Any], scope: Scope, errors: Sequence[FieldError], page_url: str
) -> ScopeView:
    """The scope's name and crumbs, and ``errors`` placed by the steps their paths name."""
    holder = holder_of(document, scope)
    crumbs = [
        (step_label(scope[: i + 1]), scope_text(scope[: i + 1])) for i in range(len(scope) - 1)
    ]
    view = ScopeView(
        path=scope, name=str(holder.get("name") or (scope[-1] if scope else "")), crumbs=crumbs
    )
    for error in map(localized, errors):
        chain = steps_of_path(document, error.path)
        if not chain:
            view.general.append(error)
        elif chain[:-1] == scope:
            view.by_node.setdefault(chain[-1], []).append(error)
        else:
            where = f"?check=1&scope={scope_text(chain[:-1])}" if len(chain) > 1 else "?check=1"
            view.elsewhere.append(
                Elsewhere(
                    label=step_label(chain),
                    href=f"{page_url}{where}#node-{chain[-1]}",
                    message=error.message,
                )
            )
    return view
