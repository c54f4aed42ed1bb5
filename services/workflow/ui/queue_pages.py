"""Queue members in the pages: the queues, each queue's members by name, add and remove.

The same ``Catalog`` calls as ``/api/v1/queues/{key}/members`` and ``tramita queue
add-member|remove-member`` (each its own unit of work, audited as
``workflow.queue.members_added`` / ``workflow.queue.member_removed`` with the reason), and the
same permission for a change: ``workflow.admin`` (the pages need it to be seen at all). A person
is added by part of the name or login a clerk knows (choosing among several matches,
``ui.people_pick``); membership alone does not grant the queue's permission.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote
from uuid import UUID

from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath

from contracts.errors import NotFound
from core.i18n import gettext
from services.workflow.api.queues import catalog_of
from services.workflow.runtime.services.inbox import QueueOption
from services.workflow.ui.actions import Action, perform, show
from services.workflow.ui.deps import inbox_of
from services.workflow.ui.member_forms import form_person, person_choice, person_name, picked
from services.workflow.ui.people import names_of
from services.workflow.ui.people_pick import Pick
from services.workflow.ui.web import page, page_requires, see_other, ui_actor

QUEUES = "/cms/workflow/queues"
MESSAGES = ("added", "removed", "unchanged")


def _members_url(key: str) -> str:
    return f"{QUEUES}/{quote(key, safe='')}/members"


async def _queue(request: Request[Any, Any, Any], key: str) -> QueueOption:
    found = next((q for q in await inbox_of(request).queues(None) if q.key == key), None)
    if found is None:
        raise NotFound("unknown queue", queue=key)
    return found


def _add(queue: QueueOption, username: str = "", pick: Pick | None = None) -> Action:
    return Action(
        title=gettext("Add a member to %(queue)s") % {"queue": queue.name},
        intro=gettext(
            "The person will see this queue's tasks in the inbox. To work them they also need "
            "the queue's permission in their profile."
        ),
        url=f"{_members_url(queue.key)}/add",
        back=_members_url(queue.key),
        button=gettext("Add the member"),
        facts=[(gettext("Queue"), queue.name)],
        choices=[person_choice(username, pick)],
    )


def _remove(queue: QueueOption, user_id: str, name: str) -> Action:
    return Action(
        title=gettext("Remove %(name)s from %(queue)s") % {"name": name, "queue": queue.name},
        intro=gettext(
            "The person stops seeing this queue's tasks. A task they have claimed stays with "
            "them until it is released or forwarded."
        ),
        url=f"{_members_url(queue.key)}/{user_id}/remove",
        back=_members_url(queue.key),
        button=gettext("Remove the member"),
        facts=[(gettext("Queue"), queue.name), (gettext("Person"), name)],
        danger=True,
    )


class QueuePagesController(Controller):
    path = QUEUES
    include_in_schema = False
    guards = [page_requires("workflow.admin")]

    @get("/")
    async def queues(self, request: Request[Any, Any, Any]) -> Response[Any]:
        return page(request, "queues.html", queues=await inbox_of(request).queues(None))

    @get("/{key:str}/members")
    async def members(self, request: Request[Any, Any, Any], key: FromPath[str]) -> Response[Any]:
        queue = await _queue(request, key)
        members = await catalog_of(request).members(queue.key)
        msg = request.query_params.get("msg")
        return page(
            request,
            "queue_members.html",
            queue=queue,
            members=members,
            names=await names_of(request, members),
            base=_members_url(queue.key),
            msg=msg if msg in MESSAGES else None,
        )

    @get("/{key:str}/members/add")
    async def add_page(self, request: Request[Any, Any, Any], key: FromPath[str]) -> Response[Any]:
        return show(request, _add(await _queue(request, key)))

    @post("/{key:str}/members/add", status_code=303)
    async def add(self, request: Request[Any, Any, Any], key: FromPath[str]) -> Response[Any]:
        queue = await _queue(request, key)
        username, pick = await form_person(request)

        async def act(reason: str, _form: Any) -> Response[Any]:
            user_id = picked(pick)
            added = await catalog_of(request).add_member(
                queue.key, user_id, actor=ui_actor(request), reason=reason
            )
            return see_other(f"{_members_url(queue.key)}?msg={'added' if added else 'unchanged'}")

        return await perform(request, _add(queue, username, pick), act)

    @get("/{key:str}/members/{member:uuid}/remove")
    async def remove_page(
        self, request: Request[Any, Any, Any], key: FromPath[str], member: FromPath[UUID]
    ) -> Response[Any]:
        queue, user_id = await _queue(request, key), str(member)
        name = await person_name(request, user_id)
        return show(request, _remove(queue, user_id, name))

    @post("/{key:str}/members/{member:uuid}/remove", status_code=303)
    async def remove(
        self, request: Request[Any, Any, Any], key: FromPath[str], member: FromPath[UUID]
    ) -> Response[Any]:
        queue, user_id = await _queue(request, key), str(member)
        name = await person_name(request, user_id)

        async def act(reason: str, _form: Any) -> Response[Any]:
            removed = await catalog_of(request).remove_member(
                queue.key, user_id, actor=ui_actor(request), reason=reason
            )
            msg = "removed" if removed else "unchanged"
            return see_other(f"{_members_url(queue.key)}?msg={msg}")

        return await perform(request, _remove(queue, user_id, name), act)
