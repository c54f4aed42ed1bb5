"""The admin pages' session: the signed cookie, the signed-in user and the page guards.

Shared by every ``/cms`` page, the workflow service's and a module's alike: identity rides on
the ``tramita_session`` cookie (``HttpOnly``, ``SameSite=Strict``, scoped to ``/cms``) holding
the signed, expiring token ``core.auth.issue_token`` makes, naming a server-side session
(``core.sessions``) that logout revokes. ``page_requires`` is ``core.auth.requires`` for that
cookie: the same permission names, ``Unauthenticated`` (to the login page) or ``Forbidden``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Coroutine
from typing import Any

from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler

from contracts.errors import Forbidden, NotFound, Unauthenticated
from core.auth import TokenClaims, read_token

SESSION_COOKIE = "tramita_session"
USER_KEY = "tramita_ui_user"
PERMISSIONS_KEY = "tramita_ui_permissions"


def platform_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Any:
    return connection.app.state.platform


def session_claims(connection: ASGIConnection[Any, Any, Any, Any]) -> TokenClaims | None:
    """The cookie's claims when it is a well-signed, unexpired session token, else ``None``."""
    token = connection.cookies.get(SESSION_COOKIE)
    if not token:
        return None
    platform = platform_of(connection)
    try:
        claims = read_token(
            platform.settings.secret_key,
            token,
            now=platform.clock.now(),
            max_ttl_s=platform.settings.token_max_ttl_s,
        )
        if claims.session_id is None:
            return None
        uuid.UUID(claims.session_id)
        uuid.UUID(claims.user_id)
    except (Unauthenticated, ValueError):
        return None
    return claims


async def session_user(connection: ASGIConnection[Any, Any, Any, Any]) -> Any:
    """The signed-in user (cached on the connection); ``Unauthenticated`` sends to login."""
    state = connection.scope.setdefault("state", {})
    cached = state.get(USER_KEY)
    if cached is not None:
        return cached
    claims = session_claims(connection)
    if claims is None or claims.session_id is None:
        raise Unauthenticated("sign in to use the admin pages")
    platform = platform_of(connection)
    if not await platform.sessions.is_live(claims.session_id, claims.user_id):
        raise Unauthenticated("the session has ended")
    try:
        user = await platform.directory.get_user(claims.user_id)
    except NotFound as exc:
        raise Unauthenticated("the session names no known user") from exc
    if not user.active:
        raise Unauthenticated("the user is inactive")
    # The layout's navigation shows only the pages the person may open.
    state[PERMISSIONS_KEY] = await platform.directory.of(user.id)
    state[USER_KEY] = user
    return user


Guard = Callable[[ASGIConnection[Any, Any, Any, Any], BaseRouteHandler], Coroutine[Any, Any, None]]


def page_requires(permission: str) -> Guard:
    """Like ``core.auth.requires`` but for the session cookie (the same permission names)."""

    async def guard(
        connection: ASGIConnection[Any, Any, Any, Any], _handler: BaseRouteHandler
    ) -> None:
        user = await session_user(connection)
        if not await platform_of(connection).directory.has(user.id, permission):
            raise Forbidden("the user's profile lacks a permission", permission=permission)

    guard.permission = permission  # type: ignore[attr-defined]
    guard.__name__ = f"page_requires_{permission.replace('.', '_')}"
    return guard


def page_requires_any(*permissions: str) -> Guard:
    """Like :func:`page_requires`, satisfied by any one of ``permissions``."""

    async def guard(
        connection: ASGIConnection[Any, Any, Any, Any], _handler: BaseRouteHandler
    ) -> None:
        user = await session_user(connection)
        directory = platform_of(connection).directory
        for permission in permissions:
            if await directory.has(user.id, permission):
                return
        raise Forbidden("the user's profile lacks a permission", permission=permissions[0])

    guard.permission = permissions[0]  # type: ignore[attr-defined]
    guard.__name__ = "page_requires_any_" + "_".join(p.replace(".", "_") for p in permissions)
    return guard
