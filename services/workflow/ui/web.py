"""What every page shares: the session cookie, the page guard, CSRF, security headers, errors.

The admin pages are server-rendered and must work without JavaScript, so identity rides on a
cookie rather than a bearer header. The cookie holds the same signed, expiring token the API
issues (``core.auth.issue_token``, checked against the injected clock) naming a server-side
session (``core.sessions``) that logout revokes; it is ``HttpOnly``, ``SameSite=Strict``,
``Secure`` (unless configured off for plain-HTTP development) and scoped to ``/cms``. Every
form carries Litestar's CSRF token; the middleware is built lazily because the secret is the
booted platform's, not an import-time constant. Errors keep the single mapping in
``core.web`` for the API; pages only turn them into HTML (or a redirect to the login page)
because a person, not a client, reads them.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from functools import partial
from typing import Any
from urllib.parse import quote

from litestar import Request, Response
from litestar.config.csrf import CSRFConfig
from litestar.connection import ASGIConnection
from litestar.datastructures import Cookie
from litestar.exceptions import HTTPException
from litestar.middleware.csrf import CSRFMiddleware
from litestar.response import Redirect, Template
from litestar.types import ASGIApp, ExceptionHandlersMap, Receive, Scope, Send

from contracts.errors import TramitaError, Unauthenticated
from contracts.kernel import Actor
from core.auth import issue_token
from core.i18n import gettext
from core.localtime import DEFAULT_ZONE, date_text, datetime_text
from core.page_session import PERMISSIONS_KEY as _PERMISSIONS_KEY
from core.page_session import SESSION_COOKIE as SESSION_COOKIE
from core.page_session import USER_KEY as _USER_KEY
from core.page_session import Guard as Guard
from core.page_session import page_requires as page_requires
from core.page_session import page_requires_any as page_requires_any
from core.page_session import platform_of as platform_of
from core.page_session import session_claims as session_claims
from core.page_session import session_user as session_user
from core.problem_headers import limit_headers, problem_headers
from core.tenancy import TENANT_COOKIE, remembered_tenant
from services.workflow.page_headers import CSP as CSP  # re-exported for the pages
from services.workflow.page_headers import SCRIPT_CSP as SCRIPT_CSP
from services.workflow.page_headers import SECURITY_HEADERS as SECURITY_HEADERS
from services.workflow.ui.people import person

SESSION_TTL_S = 8 * 3600
CMS = "/cms"
LOGIN = "/cms/login"


# --- session -----------------------------------------------------------------------------------


def session_ttl_s(platform: Any) -> int:
    """Eight hours, or less when ``TRAMITA_TOKEN_MAX_TTL_S`` caps tokens lower."""
    return min(SESSION_TTL_S, int(platform.settings.token_max_ttl_s))


def session_cookie(platform: Any, value: str, max_age: int) -> Cookie:
    return Cookie(
        key=SESSION_COOKIE,
        value=value,
        path=CMS,
        httponly=True,
        secure=bool(platform.settings.secure_cookies),
        samesite="strict",
        max_age=max_age,
    )


async def open_session(platform: Any, user_id: str) -> Cookie:
    """A new server-side session and the cookie that names it."""
    ttl = session_ttl_s(platform)
    session_id = await platform.sessions.open(user_id, ttl_s=ttl)
    token = issue_token(
        platform.settings.secret_key,
        user_id,
        now=platform.clock.now(),
        ttl_s=ttl,
        session_id=session_id,
    )
    return session_cookie(platform, token, ttl)


def ui_actor(connection: ASGIConnection[Any, Any, Any, Any]) -> Actor:
    user = connection.scope.get("state", {}).get(_USER_KEY)
    if user is None:
        raise Unauthenticated("this page has no session guard")
    return Actor(kind="user", id=user.id)


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
            settings = scope["app"].state.platform.settings
            secret = settings.secret_key
            derived = hashlib.sha256(f"tramita.ui.csrf:{secret}".encode()).hexdigest()
            config = CSRFConfig(
                secret=derived,
                cookie_name="tramita_csrf",
                cookie_path="/",
                cookie_httponly=True,
                cookie_samesite="strict",
                cookie_secure=bool(settings.secure_cookies),
            )
            self._inner = CSRFMiddleware(self.app, config)
        await self._inner(scope, receive, send)


# --- rendering ---------------------------------------------------------------------------------


def fmt_dt(value: datetime | None, zone_name: str = DEFAULT_ZONE) -> str:
    """Local time of the jurisdiction, as a Brazilian reader writes it."""
    return datetime_text(value, zone_name)


def zone_of(connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    """The jurisdiction's zone (``TRAMITA_TIMEZONE``) every page shows times in."""
    zone_name: str = platform_of(connection).settings.timezone
    return zone_name


def page(
    request: Request[Any, Any, Any],
    template: str,
    *,
    status_code: int = 200,
    csp: str = CSP,
    headers: dict[str, str] | None = None,
    **context: Any,
) -> Template:
    state = request.scope.get("state", {})
    user = state.get(_USER_KEY)
    zone_name = zone_of(request)
    tenants = tuple(getattr(user, "tenants", ()))
    return Template(
        template_name=template,
        context={
            "user": user,
            "can": state.get(_PERMISSIONS_KEY, frozenset()),
            "dt": partial(fmt_dt, zone_name=zone_name),
            "d": partial(date_text, zone_name=zone_name),
            "path": request.url.path,
            "person": person,
            "tenants": tenants,  # the header's chooser, when the person works for several
            "tenant": remembered_tenant(tenants, request.cookies.get(TENANT_COOKIE), "")
            if tenants
            else None,
            **context,
        },
        status_code=status_code,
        headers={**SECURITY_HEADERS, "content-security-policy": csp, **(headers or {})},
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
    headers: dict[str, str] = {}
    if isinstance(exc, TramitaError):
        status, title = exc.status, exc.title
        headers = problem_headers(exc)
    elif isinstance(exc, HTTPException):
        status, title = exc.status_code, str(exc.detail)
        headers = limit_headers(exc)
    else:
        status, title = 500, "Internal error"
    response = page(request, "error.html", status_code=status, status=status, title=gettext(title))
    response.headers.update(headers)
    return response


PAGE_ERRORS: ExceptionHandlersMap = {
    Unauthenticated: to_login,
    TramitaError: error_page,
    HTTPException: error_page,
}
