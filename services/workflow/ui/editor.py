"""The draft editor: build a definition as an ordered list of nodes, one form per edit.

No canvas and no script: every edit is one POST applying one pure operation
(``services.workflow.definition.drafts``) to the stored draft, saved only
if the draft is still at the ``row_version`` the page was loaded at, then a redirect back to
the edited node's anchor. A refused edit comes back with the typed values and an error per
field; a concurrent edit comes back the same way with the draft as it now is, so nothing is
lost on either side. ``Validate`` runs the engine's own compiler (the checks publishing runs)
and ``Publish`` goes through the engine's publisher, audit row included, exactly like an
uploaded file. A published draft keeps the version number it became and turns read-only.
Everything needs ``workflow.publish``.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Final

from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath

from contracts.errors import (
    BadRequest,
    ConcurrentModification,
    Conflict,
    DefinitionInvalid,
    FieldError,
    NotFound,
)
from core.i18n import localized
from core.numbers import whole_number
from services.workflow.api.access import tenant_of
from services.workflow.definition.drafts.ops import (
    IDENTIFIER,
    NODE_TYPES,
    Applied,
    Document,
    OpError,
    UnknownNode,
    node_ids,
)
from services.workflow.definition.drafts.props import RESULTS, set_header
from services.workflow.definition.drafts.scopes import Scope, add_step, in_scope
from services.workflow.definition.gaps import Suggestion, accept, gaps_of, pending
from services.workflow.reads.drafts import Draft
from services.workflow.ui.deps import engine_of, reads_of
from services.workflow.ui.editor_forms import (
    ACTIONS,
    Failed,
    back_to,
    call_edit,
    editor_nodes,
    prefix_of,
    read_values,
    removed_from_query,
)
from services.workflow.ui.editor_new import DRAFTS, NewDraftController, drafts_of, drafts_scope
from services.workflow.ui.editor_scopes import (
    holder_of,
    requested_scope,
    scope_view,
    suggestion_scope,
)
from services.workflow.ui.web import page, page_requires, see_other, ui_actor

__all__ = ["DraftEditorController", "NewDraftController"]

ADD_FIELDS: Final = ("node_id", "node_type", "name", "after")
HEADER_FIELDS: Final = ("name", "protocol_prefix", "description")
Operation = Callable[[Document], Applied]


class DraftEditorController(Controller):
    path = DRAFTS
    include_in_schema = False
    guards = [page_requires("workflow.publish")]

    @get("/{draft_id:str}")
    async def show(self, request: Request[Any, Any, Any], draft_id: FromPath[str]) -> Response[Any]:
        draft = await _draft(request, draft_id)
        scope = requested_scope(request.query_params.get("scope"))
        holder_of(draft.document, scope)
        checked = request.query_params.get("check") == "1"
        errors = _validation(request, draft) if checked else []
        return await _editor(
            request, draft, checked=checked, errors=errors, from_query=True, scope=scope
        )

    @post("/{draft_id:str}/header", status_code=303)
    async def header(
        self, request: Request[Any, Any, Any], draft_id: FromPath[str]
    ) -> Response[Any]:
        values = read_values(await request.form(), (*HEADER_FIELDS, "row_version"))
        return await _apply(
            request,
            draft_id,
            Failed("header", None, values, order=HEADER_FIELDS),
            lambda doc: set_header(
                doc, values["name"], values["protocol_prefix"], values["description"]
            ),
            "header",
        )

    @post("/{draft_id:str}/nodes", status_code=303)
    async def add(self, request: Request[Any, Any, Any], draft_id: FromPath[str]) -> Response[Any]:
        values = read_values(await request.form(), (*ADD_FIELDS, "row_version", "scope"))
        scope = requested_scope(values["scope"])
        return await _apply(
            request,
            draft_id,
            Failed("add", None, values, order=ADD_FIELDS),
            lambda doc: in_scope(
                doc,
                scope,
                lambda inner: add_step(
                    inner, values["node_id"], values["node_type"], values["name"], values["after"]
                ),
            ),
            "added",
            scope,
        )

    @post("/{draft_id:str}/nodes/{node_id:str}/{action:str}", status_code=303)
    async def edit_node(
        self,
        request: Request[Any, Any, Any],
        draft_id: FromPath[str],
        node_id: FromPath[str],
        action: FromPath[str],
    ) -> Response[Any]:
        if action not in ACTIONS:
            raise NotFound("unknown editor action", action=action)
        fields, operation = ACTIONS[action]
        if action == "call":
            operation = call_edit(await _published(request))
        values = read_values(await request.form(), (*fields, "row_version", "scope"))
        scope = requested_scope(values["scope"])
        failed = Failed(prefix_of(node_id, action, values), node_id, values, order=fields)
        return await _apply(
            request,
            draft_id,
            failed,
            lambda doc: in_scope(doc, scope, lambda inner: operation(inner, node_id, values)),
            action,
            scope,
        )

    @post("/{draft_id:str}/suggestions", status_code=303)
    async def accept_suggestion(
        self, request: Request[Any, Any, Any], draft_id: FromPath[str]
    ) -> Response[Any]:
        """Confirm one suggestion of the imported file (``index``), or all (``index=all``)."""
        values = read_values(await request.form(), ("index", "row_version"))
        draft = await _draft(request, draft_id)
        offered = draft.import_report.suggestions if draft.import_report else []
        number = whole_number(values["index"])
        if values["index"] == "all":
            chosen = offered
        else:
            chosen = [] if number is None else offered[number : number + 1]
        if not chosen:
            raise NotFound("unknown suggestion of this draft", index=values["index"])
        focus = chosen[0].node if len(chosen) == 1 else None
        return await _apply(
            request,
            draft_id,
            Failed("suggestion", None, values),
            lambda doc: Applied(accept(doc, chosen), focus),
            "suggestion",
            suggestion_scope(draft.document, chosen),
        )

    @post("/{draft_id:str}/publish", status_code=303)
    async def publish(
        self, request: Request[Any, Any, Any], draft_id: FromPath[str]
    ) -> Response[Any]:
        expected = _expected(read_values(await request.form(), ("row_version",)))
        draft = await _editable(request, draft_id)
        if expected != draft.row_version:
            return await _conflict(request, draft_id, Failed("publish", None, {}))
        actor = ui_actor(request)
        gaps = gaps_of(draft.document, _offered(draft))
        if gaps:
            return await _editor(
                request, draft, checked=True, errors=gaps, refused=True, status_code=422
            )
        try:
            version, created = await engine_of(request).publisher.publish(
                draft.document,
                actor=actor,
                tenant=draft.tenant,  # for the draft's owner
            )
        except (DefinitionInvalid, BadRequest, Conflict) as exc:
            errors = list(exc.errors) or [
                localized(FieldError.of("", exc.problem_type, exc.detail))
            ]
            return await _editor(
                request, draft, checked=True, errors=errors, refused=True, status_code=422
            )
        # An edit that lands after publishing read the draft keeps it a draft: nothing lost.
        with contextlib.suppress(ConcurrentModification):
            await drafts_of(request).mark_published(
                draft.id, version.version, expected=expected, actor=actor
            )
        msg = "published" if created else "unchanged"
        return see_other(
            f"/cms/workflow/definitions/{version.key}/versions/{version.version}?msg={msg}"
        )

    @post("/{draft_id:str}/discard", status_code=303)
    async def discard(
        self, request: Request[Any, Any, Any], draft_id: FromPath[str]
    ) -> Response[Any]:
        expected = _expected(read_values(await request.form(), ("row_version",)))
        try:
            await drafts_of(request).delete(draft_id, expected=expected)
        except ConcurrentModification:
            return await _conflict(request, draft_id, Failed("discard", None, {}))
        return see_other(f"{DRAFTS}?msg=discarded")


# --- applying one edit -----------------------------------------------------------------------


async def _apply(
    request: Request[Any, Any, Any],
    draft_id: str,
    failed: Failed,
    operation: Operation,
    msg: str,
    scope: Scope = (),
) -> Response[Any]:
    """Apply ``operation`` to the draft as stored, if the page saw that same version."""
    expected = _expected(failed.values)
    draft = await _editable(request, draft_id)
    if expected != draft.row_version:
        return await _conflict(request, draft_id, failed, scope)
    holder_of(draft.document, scope)
    try:
        applied = operation(draft.document)
    except OpError as exc:
        failed = replace(failed, errors=exc.errors)
        return await _editor(request, draft, failed=failed, status_code=422, scope=scope)
    except UnknownNode as exc:
        raise NotFound("unknown node in this draft", node_id=str(exc)) from exc
    try:
        await drafts_of(request).save(
            draft.id, applied.document, expected=expected, actor=ui_actor(request)
        )
    except ConcurrentModification:
        return await _conflict(request, draft_id, failed, scope)
    return see_other(back_to(f"{DRAFTS}/{draft.id}", msg, applied, scope))


async def _conflict(
    request: Request[Any, Any, Any], draft_id: str, failed: Failed, scope: Scope = ()
) -> Response[Any]:
    """The draft as it is now, the refused form still holding what the person typed."""
    fresh = await _draft(request, draft_id)
    holder_of(fresh.document, scope)
    return await _editor(request, fresh, failed=failed, conflict=True, status_code=409, scope=scope)


def _expected(values: Mapping[str, str]) -> int:
    raw = str(values.get("row_version") or "")
    number = whole_number(raw)
    return -1 if number is None else number


# --- rendering -------------------------------------------------------------------------------


def _offered(draft: Draft) -> list[Suggestion]:
    return list(draft.import_report.suggestions) if draft.import_report else []


def _validation(request: Request[Any, Any, Any], draft: Draft) -> list[FieldError]:
    """Every gap at once (parsing would stop at the first), else the engine's own compile:
    every check publishing runs, nothing stored."""
    gaps = gaps_of(draft.document, _offered(draft))
    if gaps:
        return gaps
    try:
        engine_of(request).compiler.compile(draft.document)
    except DefinitionInvalid as exc:
        return _errors_of(exc)
    return []


def _errors_of(exc: DefinitionInvalid | BadRequest) -> list[FieldError]:
    return list(exc.errors) or [FieldError(path="", code=exc.problem_type, message=exc.detail)]


async def _editor(
    request: Request[Any, Any, Any],
    draft: Draft,
    *,
    failed: Failed | None = None,
    conflict: bool = False,
    checked: bool = False,
    refused: bool = False,
    errors: list[FieldError] | None = None,
    from_query: bool = False,
    status_code: int = 200,
    scope: Scope = (),
) -> Response[Any]:
    doc = draft.document
    view = scope_view(doc, scope, errors or [], f"{DRAFTS}/{draft.id}")
    holder = holder_of(doc, scope)
    known = engine_of(request).compiler.known
    params = request.query_params if from_query else {}
    node = params.get("node") or ""
    return page(
        request,
        "editor_draft.html",
        status_code=status_code,
        draft=draft,
        doc=doc,
        scope=view,
        nodes=editor_nodes(holder, view.by_node),
        ids=node_ids(holder),
        types=NODE_TYPES,
        results=RESULTS,
        general=view.general,
        error_count=len(errors or []),
        checked=checked,
        refused=refused,
        failed=failed,
        conflict=conflict,
        message=params.get("msg"),
        message_node=node if IDENTIFIER.match(node) else None,
        removed=removed_from_query(params.get("removed"), holder),
        latest=await _latest(request, draft.definition_key),
        queues=sorted(known.queues),
        handlers=sorted(known.handlers),
        forms=sorted(f for f in known.forms if "@" not in f),
        imported=_imported(draft),
        definitions=sorted(await _published(request)),
    )


def _imported(draft: Draft) -> dict[str, Any] | None:
    """The import panel: the file, the gaps left, the suggestions still open (with their
    index in the report, which the accept form posts) and the notes."""
    report = draft.import_report
    if report is None:
        return None
    open_ = pending(draft.document, report.suggestions)
    return {
        "filename": report.filename,
        "gaps": [localized(g) for g in gaps_of(draft.document, report.suggestions)],
        "suggestions": [(i, s) for i, s in enumerate(report.suggestions) if s in open_],
        "notes": [localized(n) for n in report.notes],
    }


async def _latest(request: Request[Any, Any, Any], key: str) -> int | None:
    numbers = [
        v.version for v in await reads_of(request).versions(key, tenant=await tenant_of(request))
    ]
    return max(numbers) if numbers else None


async def _published(request: Request[Any, Any, Any]) -> dict[str, set[int]]:
    """Each published definition's key and version numbers: what a call step may call."""
    found: dict[str, set[int]] = {}
    for summary in await reads_of(request).versions(None, tenant=await tenant_of(request)):
        if summary.status == "published":
            found.setdefault(summary.key, set()).add(summary.version)
    return found


async def _draft(request: Request[Any, Any, Any], draft_id: str) -> Draft:
    found = await drafts_of(request).get(draft_id) if _is_uuid(draft_id) else None
    owner, every = await drafts_scope(request)
    if found is None or not (every or found.tenant == owner):  # another tenant's: unknown
        raise NotFound("unknown workflow draft", draft_id=draft_id)
    return found


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


async def _editable(request: Request[Any, Any, Any], draft_id: str) -> Draft:
    draft = await _draft(request, draft_id)
    if draft.published_version is not None:
        raise ConcurrentModification(
            "this draft was already published", version=draft.published_version
        )
    return draft
