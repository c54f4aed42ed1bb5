"""The citizen's timeline page from a signed link: protocol, status, dates, nothing internal.

Same data and same guards as ``/public/timeline/{token}`` (the signed link is the credential,
rate-limited per address), rendered with the site's template and stylesheet.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, Router, get
from litestar.exceptions import HTTPException
from litestar.middleware.rate_limit import RateLimitConfig
from litestar.params import FromPath
from litestar.types import ExceptionHandlersMap

from contracts.errors import NotFound, TramitaError
from core.i18n import N_, gettext
from core.problem_headers import limit_headers
from services.workflow.public.links import DEFAULT_LINK_TTL_S, read_link
from services.workflow.public.routes import DEFAULT_RATE, protected, with_documents
from services.workflow.public.timeline import build_timeline, status_only
from services.workflow.reads.search import InstanceQuery
from services.workflow.ui.deadline_view import deadline_stories
from services.workflow.ui.deps import reads_of
from services.workflow.ui.documents import size_text
from services.workflow.ui.web import page, platform_of


@get("/timeline/{token:str}")
async def portal_timeline(request: Request[Any, Any, Any], token: FromPath[str]) -> Response[Any]:
    platform = platform_of(request)
    protocol = read_link(
        platform.settings.secret_key, platform.clock, token, max_age_s=DEFAULT_LINK_TTL_S
    )
    source = await reads_of(request).public_source(protocol)
    if source is None:
        raise NotFound("unknown or expired link")
    found = await reads_of(request).search(InstanceQuery(protocol=protocol, limit=1))
    instance_id = found[0].id if found else None
    if await protected(request, instance_id):
        timeline, told = status_only(build_timeline(source)), []
    else:
        told = await deadline_stories(request, instance_id, public=True) if instance_id else []
        timeline = await with_documents(request, build_timeline(source), instance_id, token)
    return page(
        request,
        "portal_timeline.html",
        timeline=timeline,
        deadline_stories=told,
        doc_size=size_text,
    )


_PORTAL_ERRORS = {
    404: (
        N_("Invalid or expired link"),
        N_(
            "This tracking link is not valid or has expired. Ask the body that received your "
            "request for a new link."
        ),
    ),
    429: (
        N_("Too many requests in a row"),
        N_("You opened this page many times in a short while. Wait a minute and try again."),
    ),
}
_PORTAL_FALLBACK = (N_("This page could not be shown"), N_("Try again in a few minutes."))


def portal_error(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    """The citizen's own error page: the portal's look, no staff navigation or inbox link."""
    if isinstance(exc, TramitaError):
        status = exc.status
    elif isinstance(exc, HTTPException):
        status = exc.status_code
    else:
        status = 500
    heading, explanation = _PORTAL_ERRORS.get(status, _PORTAL_FALLBACK)
    response = page(
        request,
        "portal_error.html",
        status_code=status,
        heading=gettext(heading),
        explanation=gettext(explanation),
    )
    if isinstance(exc, HTTPException):
        response.headers.update(limit_headers(exc))  # RateLimit-* and Retry-After on a 429
    return response


PORTAL_ERRORS: ExceptionHandlersMap = {TramitaError: portal_error, HTTPException: portal_error}


def portal_router(per_minute: int = DEFAULT_RATE) -> Router:
    limit = RateLimitConfig(rate_limit=("minute", per_minute), store="tramita_portal_rate")
    return Router(
        path="/portal",
        route_handlers=[portal_timeline],
        middleware=[limit.middleware],
        exception_handlers=PORTAL_ERRORS,
        include_in_schema=False,
    )
