"""Sign in and out of the admin pages with the platform's own users and passwords."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get, post
from litestar.datastructures import Cookie
from litestar.params import FromQuery

from services.workflow.ui.web import (
    LOGIN,
    SESSION_COOKIE,
    SESSION_TTL_S,
    page,
    platform_of,
    safe_next,
    see_other,
    session_cookie_value,
)


def _cookie(value: str, max_age: int) -> Cookie:
    return Cookie(
        key=SESSION_COOKIE,
        value=value,
        path="/",
        httponly=True,
        samesite="strict",
        max_age=max_age,
    )


@get(LOGIN, include_in_schema=False)
async def login_form(
    request: Request[Any, Any, Any], next: FromQuery[str | None] = None
) -> Response[Any]:
    return page(request, "login.html", next=safe_next(next), failed=False, username="")


@post(LOGIN, include_in_schema=False, status_code=200)
async def login(request: Request[Any, Any, Any]) -> Response[Any]:
    """A wrong user name or password gets one message for both (no account enumeration)."""
    form = await request.form()
    username = str(form.get("username") or "").strip()
    password = str(form.get("password") or "")
    target = safe_next(str(form.get("next") or ""))
    platform = platform_of(request)
    user = await platform.directory.authenticate(username, password) if username else None
    if user is None:
        return page(
            request, "login.html", status_code=401, next=target, failed=True, username=username
        )
    response = see_other(target)
    response.cookies.append(_cookie(session_cookie_value(platform, user.id), SESSION_TTL_S))
    return response


@post("/cms/logout", include_in_schema=False, status_code=303)
async def logout(request: Request[Any, Any, Any]) -> Response[Any]:
    response = see_other(LOGIN)
    response.cookies.append(_cookie("", 0))
    return response
