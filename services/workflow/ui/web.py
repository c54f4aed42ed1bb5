"""What every page shares: the session cookie, the page guard, CSRF, security headers, errors.

The admin pages are server-rendered and must work without JavaScript, so identity rides on a
cookie rather than a bearer header. The cookie holds the same signed, expiring token the API
issues (``core.auth.issue_token``, checked against the injected clock), marked ``HttpOnly`` and
``SameSite=Strict`` and scoped to ``/cms``. Every form carries Litestar's CSRF token; the
middleware is built lazily because the secret is the booted platform's, not an import-time
constant. Errors keep the single mapping in ``core.web`` for the API; pages only turn them into
HTML (or a redirect to the login page) because a person, not a client, reads them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Coroutine
from datetime import datetime
from typing import Any
from urllib.parse import quote

from litestar import Request, Response
from litestar.config.csrf import CSRFConfig
from litestar.connection import ASGIConnection
from litestar.exceptions import HTTPException
from litestar.handlers.base import BaseRouteHandler
from litestar.middleware.csrf import CSRFMiddleware
from litestar.response import Redirect, Template
from litestar.types import ASGIApp, ExceptionHandlersMap, Receive, Scope, Send

from contracts.errors import Forbidden, NotFound, TramitaError, Unauthenticated
from contracts.kernel import Actor
from core.auth import issue_token, verify_token
from core.i18n import gettext

SESSION_COOKIE = "tramita_session"
SESSION_TTL_S = 8 * 3600
CMS = "/cms"
LOGIN = "/cms/login"
_USER_KEY = "tramita_ui_user"

CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)
"""No script at all (the pages work without it) and no inline style: a stylesheet of our own."""

SCRIPT_CSP = (
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; "
    "img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
"""For a page that enhances itself with a bundled script of our own (the version page's
diagram): external same-origin script and same-origin fetch, still no inline script or style."""

SECURITY_HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}


def platform_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Any:
    return connection.app.state.platform


# --- session -----------------------------------------------------------------------------------


def session_cookie_value(platform: Any, user_id: str) -> str:
    return issue_token(
        platform.settings.secret_key, user_id, now=platform.clock.now(), ttl_s=SESSION_TTL_S
    )


async def session_user(connection: ASGIConnection[Any, Any, Any, Any]) -> Any:
    """The signed-in user (cached on the connection); ``Unauthenticated`` sends to login."""
    state = connection.scope.setdefault("state", {})
    cached = state.get(_USER_KEY)
    if cached is not None:
        return cached
    token = connection.cookies.get(SESSION_COOKIE)
    if not token:
        raise Unauthenticated("sign in to use the admin pages")
    platform = platform_of(connection)
    user_id = verify_token(platform.settings.secret_key, token, now=platform.clock.now())
    try:
        user = await platform.directory.get_user(user_id)
    except NotFound as exc:
        raise Unauthenticated("the session names no known user") from exc
    if not user.active:
        raise Unauthenticated("the user is inactive")
    state[_USER_KEY] = user
    return user


def ui_actor(connection: ASGIConnection[Any, Any, Any, Any]) -> Actor:
    user = connection.scope.get("state", {}).get(_USER_KEY)
    if user is None:
        raise Unauthenticated("this page has no session guard")
    return Actor(kind="user", id=user.id)


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


def safe_next(target: str | None) -> str:
    """Only a path inside the admin pages: never an open redirect to another site."""
    if target and target.startswith(CMS + "/") and not target.startswith("//"):
        return target
    return CMS + "/workflow/inbox"


# --- CSRF and headers --------------------------------------------------------------------------


class LazyCsrfMiddleware:
    """Litestar's CSRF middleware, keyed by the booted platform's secret on first use."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._inner: CSRFMiddleware | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._inner is None:
            secret = scope["app"].state.platform.settings.secret_key
            derived = hashlib.sha256(f"tramita.ui.csrf:{secret}".encode()).hexdigest()
            config = CSRFConfig(
                secret=derived,
                cookie_name="tramita_csrf",
                cookie_path="/",
                cookie_httponly=True,
                cookie_samesite="strict",
            )
            self._inner = CSRFMiddleware(self.app, config)
        await self._inner(scope, receive, send)


# --- rendering ---------------------------------------------------------------------------------


def fmt_dt(value: datetime | None) -> str:
    return "—" if value is None else value.strftime("%d/%m/%Y %H:%M")


def page(
    request: Request[Any, Any, Any],
    template: str,
    *,
    status_code: int = 200,
    csp: str = CSP,
    **context: Any,
) -> Template:
    user = request.scope.get("state", {}).get(_USER_KEY)
    return Template(
        template_name=template,
        context={"user": user, "dt": fmt_dt, "path": request.url.path, **context},
        status_code=status_code,
        headers={**SECURITY_HEADERS, "content-security-policy": csp},
    )


def see_other(url: str) -> Redirect:
    """Post/redirect/get: a reload never repeats an action."""
    return Redirect(path=url, status_code=303, headers=SECURITY_HEADERS)


# --- errors as pages ---------------------------------------------------------------------------


def to_login(request: Request[Any, Any, Any], _exc: Exception) -> Response[Any]:
    target = request.url.path if request.method == "GET" else None
    query = f"?next={quote(safe_next(target))}" if target else ""
    return see_other(LOGIN + query)


def error_page(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    """A readable page: the problem's title and its status, never a stack trace."""
    if isinstance(exc, TramitaError):
        status, title = exc.status, exc.title
    elif isinstance(exc, HTTPException):
        status, title = exc.status_code, str(exc.detail)
    else:
        status, title = 500, "Internal error"
    return page(request, "error.html", status_code=status, status=status, title=gettext(title))


PAGE_ERRORS: ExceptionHandlersMap = {
    Unauthenticated: to_login,
    TramitaError: error_page,
    HTTPException: error_page,
}
