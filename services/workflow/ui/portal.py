"""The citizen's timeline page from a signed link: protocol, status, dates, nothing internal.

Same data and same guards as ``/public/timeline/{token}`` (the signed link is the credential,
rate-limited per address), rendered with the site's template and stylesheet.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, Router, get
from litestar.middleware.rate_limit import RateLimitConfig
from litestar.params import FromPath

from contracts.errors import NotFound
from services.workflow.public.links import DEFAULT_LINK_TTL_S, read_link
from services.workflow.public.routes import DEFAULT_RATE
from services.workflow.public.timeline import build_timeline
from services.workflow.ui.deps import reads_of
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
    return page(request, "portal_timeline.html", timeline=build_timeline(source))


def portal_router(per_minute: int = DEFAULT_RATE) -> Router:
    limit = RateLimitConfig(rate_limit=("minute", per_minute), store="tramita_portal_rate")
    return Router(
        path="/portal",
        route_handlers=[portal_timeline],
        middleware=[limit.middleware],
        include_in_schema=False,
    )
