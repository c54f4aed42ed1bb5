"""Access to a case: the guard every route that shows one carries, and the routes that read
and change its level and grants.

:func:`sees_instance` (API, bearer token) and :func:`page_sees_instance` (pages, session
cookie) ask the one authorisation point (``runtime.services.access.AccessPolicy``) about the
``instance_id`` in the path; a refusal is the 404 of an unknown id. Changing a level, granting
and revoking need ``workflow.classify`` and a reason, and are audited.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Annotated, Any, Literal
from uuid import UUID

import msgspec
from litestar import Controller, Request, get, post
from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from litestar.params import FromPath, JSONBody

from contracts.errors import NotFound, ValidationFailed
from core.auth import USER_KEY as API_USER_KEY
from core.auth import actor_of, authenticate, requires, tenant_for
from core.page_session import PERMISSIONS_KEY, USER_KEY, session_user
from core.tenancy import TENANT_HEADER
from services.workflow.api.deps import platform_of
from services.workflow.api.schemas import Reason
from services.workflow.definition.messages import N_
from services.workflow.handles import handles_of
from services.workflow.runtime.ports.access import GrantRecord, Level
from services.workflow.runtime.services.access import (
    CLASSIFY_PERMISSION,
    AccessPolicy,
    AccessView,
    Viewer,
)


def access_of(connection: ASGIConnection[Any, Any, Any, Any]) -> AccessPolicy:
    return handles_of(platform_of(connection)).access


TENANTS_PERMISSION = "workflow.tenants"
EVERY_TENANT = "*"


async def tenant_of(connection: ASGIConnection[Any, Any, Any, Any]) -> str | None:
    """The tenant the signed-in person (API token or page session, already authenticated)
    acts for in this request (``core.auth.tenant_for``). A platform administrator
    (``workflow.tenants``) may name any tenant in ``X-Tramita-Tenant``, or ``*`` for every
    tenant at once (``None``); anyone else naming one they do not work for gets 403."""
    state = connection.scope.get("state", {})
    user = state.get(API_USER_KEY) or state.get(USER_KEY)
    asked = connection.headers.get(TENANT_HEADER)
    if asked and user is not None and asked not in getattr(user, "tenants", ()):
        directory = platform_of(connection).directory
        if await directory.has(user.id, TENANTS_PERMISSION):
            return None if asked == EVERY_TENANT else asked
    return tenant_for(connection, user)


async def start_tenant(connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    """The one tenant a case started in this request belongs to (``*`` names none)."""
    tenant = await tenant_of(connection)
    if tenant is None:
        raise ValidationFailed(
            N_("a case starts in one tenant: name it in X-Tramita-Tenant"), field="tenant"
        )
    return tenant


async def viewer_for(connection: ASGIConnection[Any, Any, Any, Any], user_id: str) -> Viewer:
    """The person as the authorisation point sees them (``workflow.classify`` or not, and the
    tenant they act for); the pages' session already holds the person's permissions."""
    tenant = await tenant_of(connection)
    cached = connection.scope.get("state", {}).get(PERMISSIONS_KEY)
    if cached is not None:
        return Viewer(user_id=user_id, tenant=tenant, classifier=CLASSIFY_PERMISSION in cached)
    directory = platform_of(connection).directory
    classifier = await directory.has(user_id, CLASSIFY_PERMISSION)
    return Viewer(user_id=user_id, tenant=tenant, classifier=classifier)


async def _check(access: AccessPolicy, key: str, value: str, viewer: Viewer) -> None:
    if key == "instance_id":
        await access.ensure_visible(value, viewer)
    else:
        kind: Literal["task", "document"] = "task" if key == "task_id" else "document"
        await access.ensure_owner_visible(kind, value, viewer)


def _guard(
    who: Callable[[ASGIConnection[Any, Any, Any, Any]], Awaitable[Any]],
) -> Callable[[ASGIConnection[Any, Any, Any, Any], BaseRouteHandler], Awaitable[None]]:
    async def guard(
        connection: ASGIConnection[Any, Any, Any, Any], _handler: BaseRouteHandler
    ) -> None:
        params = connection.path_params
        found = [k for k in ("instance_id", "task_id", "document_id") if k in params]
        if not found:
            return
        user = await who(connection)
        access = access_of(connection)
        # Most cases are public: first ask without looking the person's permissions up, and
        # only on a refusal ask again as a classifier if they are one.
        plain = Viewer(user_id=user.id, tenant=await tenant_of(connection))
        for key in found:
            try:
                await _check(access, key, str(params[key]), plain)
            except NotFound:
                viewer = await viewer_for(connection, user.id)
                if not viewer.classifier:
                    raise
                await _check(access, key, str(params[key]), viewer)

    return guard


sees_instance = _guard(authenticate)
"""On the API router: a route with ``{instance_id}``, ``{task_id}`` or ``{document_id}`` in its
path answers 404 unless the caller may see the case (or the task's or document's case)."""
page_sees_instance = _guard(session_user)
"""The same on the pages' router, for the signed-in person."""


class LevelBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A case's new level, its legal ground (required unless public) and why."""

    level: Level
    ground: Annotated[str, msgspec.Meta(max_length=100)] | None = None
    reason: Reason


class GrantBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Who may see the case, until when (open-ended without ``expires_at``), and why."""

    user_id: Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
    expires_at: datetime | None = None
    reason: Reason


class RevokeBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    reason: Reason


class AccessController(Controller):
    path = "/api/v1/instances/{instance_id:uuid}/access"
    tags = ["instances"]
    security = [{"bearer": []}]

    @get("/", guards=[requires("workflow.read")])
    async def show(
        self, request: Request[Any, Any, Any], instance_id: FromPath[UUID]
    ) -> AccessView:
        """The case's level, legal ground and grants."""
        viewer = await viewer_for(request, actor_of(request).id)
        return await access_of(request).view(str(instance_id), viewer)

    @post("/", guards=[requires(CLASSIFY_PERMISSION)], status_code=200)
    async def change(
        self,
        request: Request[Any, Any, Any],
        instance_id: FromPath[UUID],
        data: JSONBody[LevelBody],
    ) -> AccessView:
        """Set the level with its legal ground (audited as ``workflow.access.changed``)."""
        actor = actor_of(request)
        return await access_of(request).change(
            str(instance_id),
            data.level,
            data.ground,
            viewer=await viewer_for(request, actor.id),
            actor=actor,
            reason=data.reason,
        )

    @post("/grants", guards=[requires(CLASSIFY_PERMISSION)], status_code=201)
    async def grant(
        self,
        request: Request[Any, Any, Any],
        instance_id: FromPath[UUID],
        data: JSONBody[GrantBody],
    ) -> GrantRecord:
        """Let a person see the case (a secret case's only readers), until ``expires_at``."""
        actor = actor_of(request)
        return await access_of(request).grant(
            str(instance_id),
            data.user_id,
            data.expires_at,
            viewer=await viewer_for(request, actor.id),
            actor=actor,
            reason=data.reason,
        )

    @post("/grants/{grant_id:uuid}/revoke", guards=[requires(CLASSIFY_PERMISSION)], status_code=204)
    async def revoke(
        self,
        request: Request[Any, Any, Any],
        instance_id: FromPath[UUID],
        grant_id: FromPath[UUID],
        data: JSONBody[RevokeBody],
    ) -> None:
        actor = actor_of(request)
        await access_of(request).revoke(
            str(instance_id),
            str(grant_id),
            viewer=await viewer_for(request, actor.id),
            actor=actor,
            reason=data.reason,
        )
