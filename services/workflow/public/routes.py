"""``/public/timeline/{token}``: the citizen's page (HTML); ``.../json``: the same as JSON.

No authentication (the signed link is the credential), rate-limited per client address (the
peer's, or the forwarded one from a trusted proxy: ``core.web``). The HTML page carries the
same security headers as the portal's pages.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, Response, Router, get
from litestar.middleware.rate_limit import RateLimitConfig
from litestar.params import FromPath

from contracts.errors import NotFound
from services.workflow.api.deps import platform_of, reads_of
from services.workflow.page_headers import SECURITY_HEADERS
from services.workflow.public.explain import render_deadlines
from services.workflow.public.links import DEFAULT_LINK_TTL_S, read_link
from services.workflow.public.timeline import (
    PublicDeadline,
    PublicTimeline,
    build_timeline,
    render_html,
)
from services.workflow.reads.search import InstanceQuery

DEFAULT_RATE = 60
"""Requests per minute per client address on ``/public``."""


def _protocol(request: Request[Any, Any, Any], token: str) -> str:
    platform = platform_of(request)
    return read_link(
        platform.settings.secret_key, platform.clock, token, max_age_s=DEFAULT_LINK_TTL_S
    )


async def _timeline(request: Request[Any, Any, Any], token: str) -> PublicTimeline:
    source = await reads_of(request).public_source(_protocol(request, token))
    if source is None:
        raise NotFound("unknown or expired link")
    return build_timeline(source)


@get("/timeline/{token:str}/json")
async def timeline_json(request: Request[Any, Any, Any], token: FromPath[str]) -> PublicTimeline:
    """The timeline as JSON, for portals, with each legal deadline explained (the citizen's
    version: no internal reason, no legal-basis wording; extension justifications kept)."""
    from services.workflow.ui.deadline_view import deadline_stories  # ui imports this module

    timeline = await _timeline(request, token)
    found = await reads_of(request).search(InstanceQuery(protocol=timeline.protocol, limit=1))
    told = await deadline_stories(request, found[0].id, public=True) if found else []
    deadlines = msgspec.convert(msgspec.to_builtins(told), list[PublicDeadline])
    return msgspec.structs.replace(timeline, deadlines=deadlines)


@get("/timeline/{token:str}", media_type="text/html")
async def timeline_page(request: Request[Any, Any, Any], token: FromPath[str]) -> Response[str]:
    """The citizen's page, with the plain-words explanation of each legal deadline."""
    from services.workflow.ui.deadline_view import deadline_stories  # ui imports this module

    timeline = await _timeline(request, token)
    zone_name = platform_of(request).settings.timezone
    found = await reads_of(request).search(InstanceQuery(protocol=timeline.protocol, limit=1))
    told = await deadline_stories(request, found[0].id, public=True) if found else []
    return Response(
        render_html(timeline, zone_name, render_deadlines(told, timeline, zone_name)),
        media_type="text/html",
        headers=SECURITY_HEADERS,
    )


def public_router(per_minute: int = DEFAULT_RATE) -> Router:
    limit = RateLimitConfig(rate_limit=("minute", per_minute), store="tramita_public_rate")
    return Router(
        path="/public",
        route_handlers=[timeline_json, timeline_page],
        middleware=[limit.middleware],
        tags=["public"],
    )


ROUTES: list[Any] = [public_router()]
