"""Sign in and out of the admin pages with the platform's own users and passwords.

Signing in goes through ``platform.login`` (throttled per account and per client, stored in
the database); signing out revokes the server-side session, so a copy of the cookie is
worthless afterwards.
"""

from __future__ import annotations

import math
from typing import Any

from litestar import Request, Response, get, post
from litestar.datastructures import Cookie
from litestar.params import FromQuery

from contracts.errors import TooManyRequests, Unauthenticated
from core.page_session import session_user
from core.tenancy import TENANT_COOKIE, acting_tenant
from services.workflow.ui.web import (
    CMS,
    LOGIN,
    SESSION_COOKIE,
    open_session,
    page,
    platform_of,
    safe_next,
    see_other,
    session_claims,
    session_cookie,
)


@get(LOGIN, include_in_schema=False)
async def login_form(
    request: Request[Any, Any, Any], next: FromQuery[str | None] = None
) -> Response[Any]:
    return page(request, "login.html", next=safe_next(next), failed=False, username="")


@post(LOGIN, include_in_schema=False, status_code=200)
async def login(request: Request[Any, Any, Any]) -> Response[Any]:
    """A wrong user name or password gets one message for both (no account enumeration);
    too many failures get 429 with ``Retry-After`` and say (in the visitor's language,
    pt-BR by default) how long to wait."""
    form = await request.form()
    username = str(form.get("username") or "").strip()
    password = str(form.get("password") or "")
    target = safe_next(str(form.get("next") or ""))
    platform = platform_of(request)
    client = request.client.host if request.client else None
    try:
        user = await platform.login.sign_in(username, password, client=client)
    except Unauthenticated:
        return page(
            request, "login.html", status_code=401, next=target, failed=True, username=username
        )
    except TooManyRequests as exc:
        wait = int(exc.fields["retry_after"])
        refused = page(
            request,
            "login.html",
            status_code=429,
            next=target,
            failed=True,
            throttled_minutes=max(1, math.ceil(wait / 60)),
            username=username,
        )
        refused.headers["Retry-After"] = str(wait)
        return refused
    response = see_other(target)
    response.cookies.append(await open_session(platform, user.id))
    response.cookies.append(_legacy_cookie_removal())
    return response


def _legacy_cookie_removal() -> Cookie:
    """Expire a session cookie an earlier release set on ``/``, which would otherwise be sent
    beside the one on ``/cms`` (it names no server-side session, so it would never sign in)."""
    return Cookie(key=SESSION_COOKIE, value="", path="/", max_age=0, httponly=True)


@post("/cms/logout", include_in_schema=False, status_code=303)
async def logout(request: Request[Any, Any, Any]) -> Response[Any]:
    platform = platform_of(request)
    claims = session_claims(request)
    if claims is not None and claims.session_id is not None:
        await platform.sessions.revoke(claims.session_id)
    response = see_other(LOGIN)
    response.cookies.append(session_cookie(platform, "", 0))
    return response


@post("/cms/tenant", include_in_schema=False, status_code=303)
async def choose_tenant(request: Request[Any, Any, Any]) -> Response[Any]:
    """The pages act for another of the person's tenants (403 when not theirs); back to
    where they were."""
    form = await request.form()
    user = await session_user(request)
    chosen = acting_tenant(user.tenants, str(form.get("tenant") or ""), "")
    response = see_other(safe_next(str(form.get("next") or "")))
    response.cookies.append(
        Cookie(
            key=TENANT_COOKIE,
            value=chosen,
            path=CMS,
            httponly=True,
            secure=bool(platform_of(request).settings.secure_cookies),
            samesite="strict",
            max_age=365 * 24 * 3600,
        )
    )
    return response
