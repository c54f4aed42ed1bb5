"""Long operations in the pages: the recent ones, one operation's progress, and cancelling it.

``/cms/workflow/operations`` lists the newest operations (every one for an operator, one's own
for anyone else); ``/cms/workflow/operations/{id}`` shows one: its status, a ``<progress>`` bar
with the same counts in words, and each refused item with the reason in Portuguese. While the
operation runs the page reloads itself every few seconds (``<meta http-equiv=refresh>``: no
script needed). Cancelling is an action page (``ui.actions``) with a required reason, open to
the starter and to operators; the runner stops before its next item. An id the user may not see
answers 404 like an unknown one.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from litestar import Controller, Request, Response, get, post
from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from litestar.params import FromPath

from contracts.errors import Forbidden, TramitaError
from core.i18n import gettext
from core.localtime import datetime_text
from services.workflow.api.access import access_of, viewer_for
from services.workflow.api.operation_runs import (
    OPERATORS,
    STARTERS,
    holds_any,
    operations_of,
    visible_operation,
)
from services.workflow.labels import OPERATION_KINDS, OPERATION_STATUSES, refusal_words, word
from services.workflow.runtime.ports.operations import Operation, OperationItem
from services.workflow.ui.actions import Action, perform, show
from services.workflow.ui.deps import engine_of, inbox_of, reads_of
from services.workflow.ui.people import names_of
from services.workflow.ui.web import page, see_other, session_user, ui_actor

OPERATIONS = "/cms/workflow/operations"
REFRESH_S = 3
MAX_SHOWN = 200
"""Refused items listed on the page (the API lists them all)."""


def _page_guard() -> Any:
    """Signed in and holding a permission that can start an operation."""

    async def guard(
        connection: ASGIConnection[Any, Any, Any, Any], _handler: BaseRouteHandler
    ) -> None:
        user = await session_user(connection)
        if not await holds_any(connection, user.id, STARTERS):
            raise Forbidden("the user's profile lacks a permission", permission=STARTERS[0])

    guard.permission = STARTERS[0]  # type: ignore[attr-defined]
    guard.__name__ = "page_requires_operation_starter"
    return guard


def letter_refusal(item: OperationItem) -> str:
    """Why a dead letter was not given up (its code, else its problem type)."""
    return refusal_words("dead_letter_abandon", item.code, item.detail, gettext)


def kind_text(kind: str) -> str:
    return word(OPERATION_KINDS, kind, gettext)


def status_text(status: str) -> str:
    return word(OPERATION_STATUSES, status, gettext)


def refusal_text(kind: str, item: OperationItem) -> str:
    """Why an item was refused, in words (from its fixed code, never an exception's text)."""
    return refusal_words(kind, item.code, item.detail, gettext)


async def _labels(
    request: Request[Any, Any, Any], operation: Operation, items: list[OperationItem]
) -> dict[str, tuple[str, str | None]]:
    """Item id -> (protocol or id, link) for the refused items shown; an instance hidden from
    the person keeps its id only, like an unknown one."""
    ids = [i.item_id for i in items]
    out: dict[str, tuple[str, str | None]] = {i: (i, None) for i in ids}
    if operation.kind == "migration":
        engine, access = engine_of(request), access_of(request)
        viewer = await viewer_for(request, ui_actor(request).id)
        for item_id in ids:
            try:
                await access.ensure_visible(item_id, viewer)
                view = await engine.status(item_id)
            except TramitaError:
                continue
            out[item_id] = (view.protocol, f"/cms/workflow/instances/{view.id}")
        return out
    if operation.kind == "dead_letter_abandon":
        return await letter_labels(request, ids)
    # A task refused as unknown (a hidden case's task is too) keeps its id only.
    known = [i.item_id for i in items if i.code != "unknown_task" and _is_uuid(i.item_id)]
    views = await inbox_of(request).views(known)
    for task_id, task in views.items():
        link = f"/cms/workflow/instances/{task.instance_id}/tasks/{task.id}"
        out[task_id] = (task.protocol, link)
    return out


async def letter_labels(
    request: Request[Any, Any, Any], ids: list[str]
) -> dict[str, tuple[str, str | None]]:
    """Dead letter id -> (its case's protocol or the id, link to the case); a letter of a case
    hidden from the person keeps its id only."""
    out: dict[str, tuple[str, str | None]] = {i: (i, None) for i in ids}
    reads, engine = reads_of(request), engine_of(request)
    viewer = await viewer_for(request, ui_actor(request).id)
    for letter_id in ids:
        letter = await reads.dead_letter(letter_id, viewer=viewer) if _is_uuid(letter_id) else None
        if letter is None:
            continue
        try:
            view = await engine.status(letter.instance_id)
        except TramitaError:
            continue
        out[letter_id] = (view.protocol, f"/cms/workflow/instances/{view.id}")
    return out


def _is_uuid(value: str) -> bool:
    try:
        UUID(value)
    except ValueError:
        return False
    return True


async def _may_cancel(request: Request[Any, Any, Any], operation: Operation) -> bool:
    if not operation.active:
        return False
    me = ui_actor(request).id
    return operation.started_by == me or await holds_any(request, me, OPERATORS)


def _cancel_action(operation: Operation) -> Action:
    return Action(
        title=gettext("Cancel the operation"),
        intro=gettext(
            "The operation stops before its next item. What it already did stays done; the "
            "items not yet handled are left as they are."
        ),
        url=f"{OPERATIONS}/{operation.id}/cancel",
        back=f"{OPERATIONS}/{operation.id}",
        button=gettext("Cancel the operation"),
        facts=[
            (gettext("Operation"), kind_text(operation.kind)),
            (gettext("Status"), status_text(operation.status)),
            (gettext("Handled"), f"{operation.handled} / {operation.total}"),
            (gettext("Started at"), datetime_text(operation.created_at)),
        ],
        danger=True,
    )


class OperationPagesController(Controller):
    path = OPERATIONS
    include_in_schema = False
    guards = [_page_guard()]

    @get("/")
    async def recent(self, request: Request[Any, Any, Any]) -> Response[Any]:
        me = ui_actor(request).id
        mine = None if await holds_any(request, me, OPERATORS) else me
        operations = await operations_of(request).recent(started_by=mine)
        return page(
            request,
            "operations_list.html",
            operations=operations,
            kinds={o.id: kind_text(o.kind) for o in operations},
            statuses={o.id: status_text(o.status) for o in operations},
            mine_only=mine is not None,
        )

    @get("/{operation_id:uuid}")
    async def progress(
        self, request: Request[Any, Any, Any], operation_id: FromPath[UUID]
    ) -> Response[Any]:
        operation = await visible_operation(request, str(operation_id), ui_actor(request).id)
        refused = (await operations_of(request).items(operation.id, refused_only=True))[:MAX_SHOWN]
        labels = await _labels(request, operation, refused)
        rows = [
            (labels[i.item_id][0], labels[i.item_id][1], refusal_text(operation.kind, i))
            for i in refused
        ]
        msg = request.query_params.get("msg")
        return page(
            request,
            "operation.html",
            op=operation,
            starter=(await names_of(request, [operation.started_by])).get(
                operation.started_by, operation.started_by
            ),
            kind=kind_text(operation.kind),
            status=status_text(operation.status),
            rows=rows,
            more=operation.refused - len(rows),
            refresh=REFRESH_S if operation.active else None,
            may_cancel=await _may_cancel(request, operation),
            msg=msg if msg == "cancelled" else None,
        )

    @get("/{operation_id:uuid}/cancel")
    async def cancel_page(
        self, request: Request[Any, Any, Any], operation_id: FromPath[UUID]
    ) -> Response[Any]:
        operation = await visible_operation(request, str(operation_id), ui_actor(request).id)
        if not await _may_cancel(request, operation):
            return see_other(f"{OPERATIONS}/{operation.id}")
        return show(request, _cancel_action(operation))

    @post("/{operation_id:uuid}/cancel", status_code=303)
    async def cancel(
        self, request: Request[Any, Any, Any], operation_id: FromPath[UUID]
    ) -> Response[Any]:
        actor = ui_actor(request)
        operation = await visible_operation(request, str(operation_id), actor.id)

        async def act(reason: str, _form: Any) -> Response[Any]:
            await operations_of(request).cancel(operation.id, actor=actor, reason=reason)
            return see_other(f"{OPERATIONS}/{operation.id}?msg=cancelled")

        return await perform(request, _cancel_action(operation), act)
