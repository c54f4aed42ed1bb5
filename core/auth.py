"""Bearer-token identity and the ``requires(permission)`` guard every plugin's routes use.

The platform signs short-lived JWTs (HS256, ``settings.secret_key``) whose ``sub`` is a user id;
the guard resolves that user through the kernel's directory, checks the permission its profile
grants and keeps the user on the request. Nothing here imports SQLAlchemy, so the workflow
service's API (which must stay free of it) can import this module: the directory is reached
through the platform on ``app.state`` and typed by the small protocols below.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Coroutine
from datetime import datetime, timedelta
from typing import Any, Protocol

import jwt
import msgspec
from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler

from contracts.errors import Forbidden, NotFound, Unauthenticated
from contracts.kernel import Actor
from core.tenancy import TENANT_COOKIE, TENANT_HEADER, acting_tenant, remembered_tenant

ALGORITHM = "HS256"
ISSUER = "tramita"
DEFAULT_TOKEN_TTL_S = 8 * 3600
USER_KEY = "tramita_user"


class Principal(Protocol):
    """The authenticated user (``core.identity.User`` satisfies it): one profile, active flag."""

    @property
    def id(self) -> str: ...
    @property
    def profile(self) -> str: ...
    @property
    def active(self) -> bool: ...


class UserDirectory(Protocol):
    async def get_user(self, user_id: str) -> Any: ...
    async def has(self, user_id: str, permission: str) -> bool: ...


class TokenClaims(msgspec.Struct, frozen=True, kw_only=True):
    user_id: str
    session_id: str | None = None
    """Set on the admin pages' session tokens: the ``core_sessions`` row they belong to."""


def issue_token(
    secret: str,
    user_id: str,
    *,
    now: datetime,
    ttl_s: int = DEFAULT_TOKEN_TTL_S,
    session_id: str | None = None,
) -> str:
    """A signed bearer token for ``user_id``; ``now`` comes from the injected clock."""
    claims: dict[str, object] = {
        "iss": ISSUER,
        "sub": user_id,
        "iat": int(now.timestamp()),
        "exp": int((now + timedelta(seconds=ttl_s)).timestamp()),
    }
    if session_id is not None:
        claims["sid"] = session_id
    return jwt.encode(claims, secret, algorithm=ALGORITHM)


def read_token(secret: str, token: str, *, now: datetime, max_ttl_s: int) -> TokenClaims:
    """What a token says; ``Unauthenticated`` when it is forged, expired, malformed or lives
    longer than ``max_ttl_s`` (``TRAMITA_TOKEN_MAX_TTL_S``: lowering it also ends tokens
    issued before).

    Expiry is checked against the injected clock (PyJWT's own check reads the wall clock).
    """
    try:
        claims = jwt.decode(
            token,
            secret,
            algorithms=[ALGORITHM],
            issuer=ISSUER,
            options={
                "verify_exp": False,
                "verify_iat": False,
                "require": ["sub", "exp", "iat", "iss"],
            },
        )
        expires, issued = int(claims["exp"]), int(claims["iat"])
    except (jwt.PyJWTError, TypeError, ValueError) as exc:
        raise Unauthenticated("the bearer token is not valid") from exc
    if expires <= int(now.timestamp()):
        raise Unauthenticated("the bearer token has expired")
    if expires - issued > max_ttl_s:
        raise Unauthenticated("the bearer token outlives the configured maximum lifetime")
    sid = claims.get("sid")
    return TokenClaims(user_id=str(claims["sub"]), session_id=str(sid) if sid else None)


def verify_token(
    secret: str, token: str, *, now: datetime, max_ttl_s: int = DEFAULT_TOKEN_TTL_S
) -> str:
    """The user id a valid token names (see :func:`read_token`)."""
    return read_token(secret, token, now=now, max_ttl_s=max_ttl_s).user_id


def bearer_of(headers: Any) -> str | None:
    value = headers.get("authorization") or ""
    scheme, _, token = str(value).partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def _platform(connection: ASGIConnection[Any, Any, Any, Any]) -> Any:
    return connection.app.state.platform


async def authenticate(connection: ASGIConnection[Any, Any, Any, Any]) -> Principal:
    """The request's user (cached on the connection); ``Unauthenticated`` without a valid one."""
    cached: Principal | None = connection.scope.get("state", {}).get(USER_KEY)
    if cached is not None:
        return cached
    token = bearer_of(connection.headers)
    if token is None:
        raise Unauthenticated("send 'Authorization: Bearer <token>'")
    platform = _platform(connection)
    user_id = verify_token(
        platform.settings.secret_key,
        token,
        now=platform.clock.now(),
        max_ttl_s=platform.settings.token_max_ttl_s,
    )
    try:
        uuid.UUID(user_id)  # user ids are UUIDs; anything else names nobody
    except ValueError as exc:
        raise Unauthenticated("the token names no known user") from exc
    directory: UserDirectory = platform.directory
    try:
        user: Principal = await directory.get_user(user_id)
    except NotFound as exc:
        raise Unauthenticated("the token names no known user") from exc
    if not user.active:
        raise Unauthenticated("the user is inactive")
    connection.scope.setdefault("state", {})[USER_KEY] = user
    return user


Guard = Callable[[ASGIConnection[Any, Any, Any, Any], BaseRouteHandler], Coroutine[Any, Any, None]]


def requires(permission: str) -> Guard:
    """A Litestar guard: the caller must be authenticated and hold ``permission``.

    The guard carries ``permission`` as an attribute so a test can walk every route and prove
    each one declares what it needs.
    """

    async def guard(
        connection: ASGIConnection[Any, Any, Any, Any], _handler: BaseRouteHandler
    ) -> None:
        user = await authenticate(connection)
        directory: UserDirectory = _platform(connection).directory
        if not await directory.has(user.id, permission):
            raise Forbidden("the user's profile lacks a permission", permission=permission)

    guard.permission = permission  # type: ignore[attr-defined]
    guard.__name__ = f"requires_{permission.replace('.', '_')}"
    return guard


def permission_of(guard: object) -> str | None:
    """The permission a guard built by :func:`requires` checks, else ``None``."""
    value = getattr(guard, "permission", None)
    return value if isinstance(value, str) else None


def tenant_for(connection: ASGIConnection[Any, Any, Any, Any], user: Any) -> str:
    """The tenant ``user`` acts for in this request: the one the ``X-Tramita-Tenant`` header
    names (``Forbidden`` unless they work for it), else the one they chose on the pages (the
    ``tramita_tenant`` cookie, on ``/cms`` only), else their first (``core.tenancy``)."""
    asked = connection.headers.get(TENANT_HEADER)
    default: str = _platform(connection).settings.tenant
    memberships = getattr(user, "tenants", ())
    if asked is None:  # the pages: the person's earlier choice, if still theirs
        return remembered_tenant(memberships, connection.cookies.get(TENANT_COOKIE), default)
    return acting_tenant(memberships, asked, default)


def current_user(connection: ASGIConnection[Any, Any, Any, Any]) -> Principal:
    """The user the guard authenticated (only valid on routes guarded by ``requires``)."""
    user: Principal | None = connection.scope.get("state", {}).get(USER_KEY)
    if user is None:
        raise Unauthenticated("this route has no authentication guard")
    return user


def actor_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Actor:
    return Actor(kind="user", id=current_user(connection).id)
