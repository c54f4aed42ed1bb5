"""``/cms/workflow/inbox/events``: server-sent events that tell an open inbox new tasks came.

Progressive enhancement only: ``static/inbox.js`` opens an ``EventSource`` here and, on a
``tasks`` event, says in the page's status line that there are new tasks (with a link that
reloads the list); without JavaScript nothing asks for this route and the page is complete.

Bounded on both ends: the stream checks the person's inbox every ``POLL_S`` seconds (the newest
visible open task and how many there are, two indexed reads) and ends after ``ROUNDS`` checks;
the ``retry`` field tells the browser when to reconnect. When the client goes away, Litestar
cancels the generator, so no stream outlives its reader.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from litestar import Controller, Request, get
from litestar.response import ServerSentEvent, ServerSentEventMessage

from services.workflow.api.access import tenant_of
from services.workflow.runtime.ports.access import Viewer
from services.workflow.runtime.services.inbox import Inbox, InboxQuery
from services.workflow.ui.deps import inbox_of
from services.workflow.ui.web import SECURITY_HEADERS, page_requires, ui_actor

POLL_S = 1.0
ROUNDS = 55
RETRY_MS = 5000


async def _newest(inbox: Inbox, viewer: Viewer) -> tuple[str | None, int]:
    assert viewer.user_id is not None
    query = InboxQuery(visible_to=viewer.user_id, sort="-created_at", limit=1, seen_by=viewer)
    page = await inbox.page(query)
    count = await inbox.count(query)
    return (page.items[0].id if page.items else None), count.value


async def changes(inbox: Inbox, viewer: Viewer) -> AsyncIterator[ServerSentEventMessage]:
    """A ``tasks`` event (data: the open-task count) whenever a newer task becomes visible."""
    yield ServerSentEventMessage(comment="inbox", retry=RETRY_MS)
    seen, _count = await _newest(inbox, viewer)
    for _ in range(ROUNDS):
        await asyncio.sleep(POLL_S)
        newest, count = await _newest(inbox, viewer)
        if newest is not None and newest != seen:
            seen = newest
            yield ServerSentEventMessage(event="tasks", data=str(count))


class InboxEventsController(Controller):
    path = "/cms/workflow/inbox/events"
    include_in_schema = False

    @get("/", guards=[page_requires("workflow.tasks")])
    async def events(self, request: Request[Any, Any, Any]) -> ServerSentEvent:
        headers = {**SECURITY_HEADERS, "cache-control": "no-store", "x-accel-buffering": "no"}
        viewer = Viewer(user_id=ui_actor(request).id, tenant=await tenant_of(request))
        return ServerSentEvent(changes(inbox_of(request), viewer), headers=headers)
