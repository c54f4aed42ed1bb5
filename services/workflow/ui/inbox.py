"""``/cms/workflow/inbox``: the person's tasks as a table, and the actions on them.

Every action is a plain form post (the page works without JavaScript): row buttons post to the
single-task routes through ``formaction``, the bulk buttons post the checked rows. Each action
redirects back (post/redirect/get) with a fixed message key, never free text.
"""

from __future__ import annotations

from typing import Any, cast
from urllib.parse import urlencode

from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath

from contracts.errors import BadRequest
from core.boundary import whole_number
from core.i18n import N_, gettext
from services.workflow.runtime.inbox import MAX_PAGE, InboxQuery, SortKey
from services.workflow.ui.deps import inbox_of, tasks_of
from services.workflow.ui.web import page, page_requires, see_other, ui_actor

INBOX = "/cms/workflow/inbox"
PAGE_SIZES = (10, 25, 50, 100)
SORTS: tuple[SortKey, ...] = (
    "due_at",
    "-due_at",
    "created_at",
    "-created_at",
    "priority",
    "-priority",
)
MESSAGES = {
    "claimed": N_("Task claimed."),
    "released": N_("Task released to the queue."),
    "forwarded": N_("Task forwarded."),
    "completed": N_("Task completed."),
    "bulk": N_("Bulk action done."),
}


def _message(key: str) -> str | None:
    text = MESSAGES.get(key)
    return gettext(text) if text else None


def page_size(params: dict[str, str]) -> int:
    """The ``limit`` asked for, within 1..MAX_PAGE; 25 when it is missing or not a number."""
    asked = whole_number(params.get("limit"))
    return 25 if asked is None else min(max(asked, 1), MAX_PAGE)


def _query(params: dict[str, str], user_id: str) -> InboxQuery:
    sort = params.get("sort") or "due_at"
    if sort not in SORTS:
        raise BadRequest("unknown sort", code="invalid_sort")
    limit = page_size(params)
    scope = params.get("scope") or "all"
    status = params.get("status") or ""
    return InboxQuery(
        visible_to=user_id,
        queue=params.get("queue") or None,
        name=params.get("name") or None,
        assignee=user_id if scope == "mine" else None,
        unassigned=scope == "unassigned",
        status=cast(Any, (status,)) if status in ("ready", "claimed") else ("ready", "claimed"),
        sort=sort,
        limit=limit,
        cursor=params.get("cursor") or None,
    )


def _sort_link(params: dict[str, str], column: str) -> tuple[str, str]:
    """(href, aria-sort) for a sortable column header: ascending first, then descending."""
    current = params.get("sort") or "due_at"
    ascending = current == column
    target = f"-{column}" if ascending else column
    state = "ascending" if ascending else "descending" if current == f"-{column}" else "none"
    rest = {k: v for k, v in params.items() if k not in ("sort", "cursor", "msg") and v}
    return f"{INBOX}?{urlencode({**rest, 'sort': target})}", state


class InboxController(Controller):
    path = INBOX
    include_in_schema = False

    @get("/", guards=[page_requires("workflow.tasks")])
    async def inbox(self, request: Request[Any, Any, Any]) -> Response[Any]:
        params = {k: str(v) for k, v in request.query_params.items()}
        user = ui_actor(request)
        result = await inbox_of(request).page(_query(params, user.id))
        keep = {k: v for k, v in params.items() if k not in ("cursor", "msg") and v}
        next_url = (
            f"{INBOX}?{urlencode({**keep, 'cursor': result.next_cursor})}"
            if result.next_cursor
            else None
        )
        first_url = f"{INBOX}?{urlencode(keep)}" if params.get("cursor") else None
        return page(
            request,
            "inbox.html",
            tasks=result.items,
            params=params,
            me=user.id,
            sizes=PAGE_SIZES,
            limit=page_size(params),
            sort_links={c: _sort_link(params, c) for c in ("due_at", "created_at", "priority")},
            next_url=next_url,
            first_url=first_url,
            message=_message(params.get("msg", "")),
        )


def _back(form: Any, msg: str) -> str:
    target = str(form.get("back") or INBOX)
    if not target.startswith("/cms/"):
        target = INBOX
    joiner = "&" if "?" in target else "?"
    return f"{target}{joiner}msg={msg}"


class TaskActionController(Controller):
    """Single-task and bulk actions; each is one authorised, audited TaskService call."""

    path = "/cms/workflow/tasks"
    include_in_schema = False
    guards = [page_requires("workflow.tasks")]

    @post("/{task_id:str}/claim", status_code=303)
    async def claim(self, request: Request[Any, Any, Any], task_id: FromPath[str]) -> Response[Any]:
        form = await request.form()
        await tasks_of(request).claim(task_id, actor=ui_actor(request))
        return see_other(_back(form, "claimed"))

    @post("/{task_id:str}/release", status_code=303)
    async def release(
        self, request: Request[Any, Any, Any], task_id: FromPath[str]
    ) -> Response[Any]:
        form = await request.form()
        await tasks_of(request).release(task_id, actor=ui_actor(request))
        return see_other(_back(form, "released"))

    @post("/{task_id:str}/forward", status_code=303)
    async def forward(
        self, request: Request[Any, Any, Any], task_id: FromPath[str]
    ) -> Response[Any]:
        form = await request.form()
        to_queue = str(form.get("to_queue") or "").strip() or None
        to_user = str(form.get("to_user") or "").strip() or None
        await tasks_of(request).forward(
            task_id, actor=ui_actor(request), to_queue=to_queue, to_user=to_user
        )
        return see_other(_back(form, "forwarded"))

    @post("/bulk", status_code=303)
    async def bulk(self, request: Request[Any, Any, Any]) -> Response[Any]:
        """Each selected task in its own transaction: one refusal never undoes the others."""
        form = await request.form()
        ids = [str(t) for t in form.getall("task_ids", [])]
        action = str(form.get("action") or "")
        actor = ui_actor(request)
        service = tasks_of(request)
        if action == "claim":
            await service.bulk_claim(ids, actor=actor)
        elif action == "forward":
            to_queue = str(form.get("bulk_queue") or "").strip() or None
            await service.bulk_reassign(ids, actor=actor, to_queue=to_queue)
        else:
            raise BadRequest("unknown bulk action", code="invalid_action")
        return see_other(_back(form, "bulk"))
