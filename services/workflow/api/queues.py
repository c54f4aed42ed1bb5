"""Queue membership over HTTP: list, add and remove the members of a human work queue.

Each change is one ``Catalog`` call (its own unit of work, audited as
``workflow.queue.members_added`` / ``workflow.queue.member_removed`` with the caller as actor)
and needs ``workflow.admin``; listing needs ``workflow.read``. A module's default members come
from ``tramita_register_queues``; what is managed here is never undone by a later boot.
"""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

import msgspec
from litestar import Controller, Request, delete, get, post
from litestar.params import FromPath, JSONBody
from msgspec import Meta

from core.auth import actor_of, requires
from services.workflow.api.deps import platform_of
from services.workflow.handles import handles_of
from services.workflow.runtime.services.human_policy import Catalog

NO_NUL = r"^[^\x00]*$"
QueueKey = Annotated[str, Meta(min_length=1, max_length=200, pattern=NO_NUL)]


class MemberBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The user (their id, as in ``/api/v1/tasks?assignee=``) to make a member."""

    user_id: UUID


class QueueMembers(msgspec.Struct, frozen=True, kw_only=True):
    """The queue's members after the call; ``changed`` false when it was already so."""

    queue: str
    members: list[str]
    changed: bool = False


def catalog_of(request: Request[Any, Any, Any]) -> Catalog:
    return handles_of(platform_of(request)).catalog


class QueueMemberController(Controller):
    path = "/api/v1/queues/{queue:str}/members"
    tags = ["queues"]
    security = [{"bearer": []}]

    @get("/", guards=[requires("workflow.read")])
    async def list_members(
        self, request: Request[Any, Any, Any], queue: FromPath[QueueKey]
    ) -> QueueMembers:
        return QueueMembers(queue=queue, members=await catalog_of(request).members(queue))

    @post("/", guards=[requires("workflow.admin")], status_code=200)
    async def add_member(
        self,
        request: Request[Any, Any, Any],
        queue: FromPath[QueueKey],
        data: JSONBody[MemberBody],
    ) -> QueueMembers:
        """Make a user a member (they still need the queue's permission to work its tasks)."""
        catalog = catalog_of(request)
        user_id = str(data.user_id)
        await platform_of(request).directory.get_user(user_id)  # NotFound for a stranger
        added = await catalog.add_member(queue, user_id, actor=actor_of(request))
        return QueueMembers(queue=queue, members=await catalog.members(queue), changed=added)

    @delete("/{user_id:uuid}", guards=[requires("workflow.admin")], status_code=200)
    async def remove_member(
        self, request: Request[Any, Any, Any], queue: FromPath[QueueKey], user_id: FromPath[UUID]
    ) -> QueueMembers:
        """Remove a member (``changed`` false when they were not one)."""
        catalog = catalog_of(request)
        removed = await catalog.remove_member(queue, str(user_id), actor=actor_of(request))
        return QueueMembers(queue=queue, members=await catalog.members(queue), changed=removed)
