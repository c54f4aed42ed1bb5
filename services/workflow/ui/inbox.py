"""``/cms/workflow/inbox``: the person's tasks as a table, and the actions on them.

Every action is a plain form post (the page works without JavaScript): row buttons post to the
single-task routes through ``formaction``, the bulk buttons post the checked rows (``bulk.py``
answers them task by task). Each single action redirects back (post/redirect/get) with a fixed
message key, never free text. Filters: protocol number, queue (a picker of the person's queues,
by name; an administrator — ``workflow.admin`` — sees every queue and may list them all at
once; a unit supervisor — ``workflow.supervise`` and supervising units — lists every queue of
their units at once, with a unit picker; ``runtime.units``),
task, mine/unassigned, status; a total count capped at ``COUNT_CAP``; previous and next pages
over the keyset cursor; select all on the page (a link without JavaScript, a toggle with it).
Where JavaScript runs, ``inbox.js`` listens to ``inbox_events`` and says when new tasks arrive.
"""

from __future__ import annotations

import hashlib
from typing import Any, cast
from urllib.parse import urlencode

import msgspec
from babel.numbers import format_decimal
from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath

from contracts.errors import BadRequest, ValidationFailed
from core.i18n import N_, current_locale, gettext, localized
from core.numbers import whole_number
from services.workflow.api.access import viewer_for
from services.workflow.runtime.ports.access import Viewer
from services.workflow.runtime.services.inbox import MAX_PAGE, Count, InboxQuery, SortKey
from services.workflow.runtime.services.units import Scope
from services.workflow.ui.deadline_view import badges_of
from services.workflow.ui.deps import engine_of, inbox_of, scope_of, tasks_of
from services.workflow.ui.people import names_of
from services.workflow.ui.web import (
    SCRIPT_CSP,
    SECURITY_HEADERS,
    page,
    page_requires,
    platform_of,
    see_other,
    ui_actor,
)

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
    "prioritised": N_("Priority set."),
}
PRIORITY_LEVELS = {0: N_("Normal"), 5: N_("High"), 9: N_("Urgent")}
"""The levels the pages offer (the task service takes 0 to 9)."""


def _message(key: str) -> str | None:
    text = MESSAGES.get(key)
    return gettext(text) if text else None


def page_size(params: dict[str, str]) -> int:
    """The ``limit`` asked for, within 1..MAX_PAGE; 25 when it is missing or not a number."""
    asked = whole_number(params.get("limit"))
    return 25 if asked is None else min(max(asked, 1), MAX_PAGE)


def _query(params: dict[str, str], user_id: str, *, oversees: Scope, viewer: Viewer) -> InboxQuery:
    """The query a page asks: the person's own inbox, or — ``scope=team`` or a unit picked, for
    a supervisor — every task of the queues in their view (all of them for an administrator
    without a unit picked; a unit outside their view is ``NotFound``)."""
    sort = params.get("sort") or "due_at"
    if sort not in SORTS:
        raise BadRequest("unknown sort", code="invalid_sort")
    limit = page_size(params)
    scope = params.get("scope") or "all"
    status = params.get("status") or ""
    protocol = (params.get("protocol") or "").strip()[:100] or None
    unit = params.get("unit") or None
    team = bool(unit) or (oversees.supervisor and scope == "team")
    in_view = oversees.queues(unit) if team else None
    return InboxQuery(
        visible_to=None if team else user_id,
        queues=None if in_view is None else tuple(sorted(in_view)),
        queue=params.get("queue") or None,
        name=(params.get("name") or "").strip()[:100] or None,
        protocol=protocol,
        assignee=user_id if scope == "mine" else None,
        unassigned=scope == "unassigned",
        status=cast(Any, (status,)) if status in ("ready", "claimed") else ("ready", "claimed"),
        sort=sort,
        limit=limit,
        cursor=params.get("cursor") or None,
        seen_by=viewer,
    )


def _sort_link(params: dict[str, str], column: str) -> tuple[str, str]:
    """(href, aria-sort) for a sortable column header: ascending first, then descending."""
    current = params.get("sort") or "due_at"
    ascending = current == column
    target = f"-{column}" if ascending else column
    state = "ascending" if ascending else "descending" if current == f"-{column}" else "none"
    rest = {k: v for k, v in params.items() if k not in (*_TRANSIENT, "sort") and v}
    return f"{INBOX}?{urlencode({**rest, 'sort': target})}", state


_TRANSIENT = ("cursor", "msg", "select")


def _link(keep: dict[str, str], **extra: str) -> str:
    query = urlencode({**keep, **extra})
    return f"{INBOX}?{query}" if query else INBOX


def etag_of(*parts: Any) -> str:
    """A weak validator over what the page shows (the body also holds a fresh bulk key)."""
    digest = hashlib.sha256(msgspec.json.encode(parts)).hexdigest()[:32]
    return f'W/"{digest}"'


def matches(header: str | None, etag: str) -> bool:
    if not header:
        return False
    return any(tag.strip() in (etag, etag[2:], "*") for tag in header.split(","))


def _total(total: Count) -> str:
    number = format_decimal(total.value, locale=current_locale())
    return f"{number}+" if total.capped else number


def _protocol(request: Request[Any, Any, Any], params: dict[str, str]) -> tuple[str, str | None]:
    """The case number filter in its stored form (a NUP typed with or without punctuation), and
    the sentence shown under the field when it cannot be a number (a wrong check digit)."""
    typed = (params.get("protocol") or "").strip()[:100]
    if not typed:
        return typed, None
    try:
        return engine_of(request).numbering.lookup(typed), None
    except ValidationFailed as refused:
        return typed, localized(refused.errors[0]).message


class InboxController(Controller):
    path = INBOX
    include_in_schema = False

    @get("/", guards=[page_requires("workflow.tasks")])
    async def inbox(self, request: Request[Any, Any, Any]) -> Response[Any]:
        """The person's tasks. Answers ``If-None-Match`` with 304 when nothing it shows
        changed, so a page (or a script) can poll it cheaply."""
        params = {k: str(v) for k, v in request.query_params.items()}
        user = ui_actor(request)
        platform = platform_of(request)
        oversees = await scope_of(request, user.id)
        supervisor = oversees.supervisor
        typed, protocol_error = _protocol(request, params)
        viewer = await viewer_for(request, user.id)
        query = _query({**params, "protocol": typed}, user.id, oversees=oversees, viewer=viewer)
        inbox = inbox_of(request)
        result = await inbox.page(query)
        total = await inbox.count(query)
        every = await inbox.queues(None)
        if oversees.admin:
            mine = every
        else:
            overseen = oversees.queues() or frozenset()
            members_of = {q.key for q in await inbox.queues(user.id)}
            mine = [q for q in every if q.key in members_of or q.key in overseen]
        people: set[str] = set()
        for option in mine:
            people.update(await inbox.members(option.key))
        names = await names_of(request, [*people, *(t.assignee for t in result.items)])
        keep = {k: v for k, v in params.items() if k not in _TRANSIENT and v}
        next_url = _link(keep, cursor=result.next_cursor) if result.next_cursor else None
        previous_url = (
            _link(keep, cursor=result.previous_cursor) if result.previous_cursor else None
        )
        first_url = _link(keep) if params.get("cursor") else None
        message = _message(params.get("msg", ""))
        badges = await badges_of(request, result.items)
        tag = etag_of(
            user.id,
            current_locale(),
            sorted(params.items()),
            [msgspec.to_builtins(t) for t in result.items],
            msgspec.to_builtins(total),
            [msgspec.to_builtins(q) for q in every],
            [q.key for q in mine],
            sorted(names.items()),
            sorted((k, msgspec.to_builtins(b)) for k, b in badges.items()),
            request.cookies.get("tramita_csrf", ""),
        )
        headers = {"etag": tag, "cache-control": "private, no-cache"}
        if matches(request.headers.get("if-none-match"), tag):
            return Response(content=b"", status_code=304, headers={**SECURITY_HEADERS, **headers})
        return page(
            request,
            "inbox.html",
            csp=SCRIPT_CSP,
            headers=headers,
            tasks=result.items,
            badges=badges,
            params=params,
            me=user.id,
            supervisor=supervisor,
            admin=oversees.admin,
            units=oversees.units,
            sizes=PAGE_SIZES,
            limit=query.limit,
            total=total,
            queues=mine,
            targets=every,
            queue_names={q.key: q.name for q in every},
            total_text=_total(total),
            people=sorted(people, key=lambda u: (names.get(u, ""), u)),
            names=names,
            select_all=params.get("select") == "all",
            select_all_url=_link(
                {**keep, **({"cursor": params["cursor"]} if params.get("cursor") else {})},
                select="all",
            ),
            sort_links={c: _sort_link(params, c) for c in ("due_at", "created_at", "priority")},
            next_url=next_url,
            previous_url=previous_url,
            first_url=first_url,
            message=message,
            protocol_error=protocol_error,
            bulk_key=str(platform.ids.new_id()),
            priority_label={k: gettext(v) for k, v in PRIORITY_LEVELS.items()},
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

    @post("/{task_id:str}/priority", status_code=303)
    async def priority(
        self, request: Request[Any, Any, Any], task_id: FromPath[str]
    ) -> Response[Any]:
        """A supervisor's priority with a reason (the task service checks the permission)."""
        form = await request.form()
        level = whole_number(str(form.get("priority") or ""))
        if level not in PRIORITY_LEVELS:
            raise BadRequest("unknown priority level", code="invalid_priority")
        await tasks_of(request).set_priority(
            task_id, actor=ui_actor(request), priority=level, reason=str(form.get("reason") or "")
        )
        return see_other(_back(form, "prioritised"))
