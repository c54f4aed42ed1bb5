"""``/public/timeline/{token}``: the citizen's page (HTML); ``.../json``: the same as JSON.

No authentication (the signed link is the credential), rate-limited per client address (the
peer's, or the forwarded one from a trusted proxy: ``core.web``). The HTML page carries the
same security headers as the portal's pages.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

import msgspec
from litestar import Request, Response, Router, get
from litestar.middleware.rate_limit import RateLimitConfig
from litestar.params import FromPath

from contracts.errors import NotFound
from services.workflow.api.deps import platform_of, reads_of
from services.workflow.api.documents import documents_of, serve
from services.workflow.handles import handles_of
from services.workflow.page_headers import SECURITY_HEADERS
from services.workflow.public.documents import citizen_document, citizen_documents
from services.workflow.public.explain import render_deadlines
from services.workflow.public.links import DEFAULT_LINK_TTL_S, read_link
from services.workflow.public.timeline import (
    PublicDeadline,
    PublicTimeline,
    build_timeline,
    render_html,
    status_only,
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


async def _instance_id(request: Request[Any, Any, Any], protocol: str) -> str | None:
    found = await reads_of(request).search(InstanceQuery(protocol=protocol, limit=1))
    return found[0].id if found else None


async def protected(request: Request[Any, Any, Any], instance_id: str | None) -> bool:
    """Whether the case is restricted or secret: its public timeline shows the status only."""
    if instance_id is None:
        return False
    return await handles_of(platform_of(request)).access.level_of(instance_id) != "public"


async def with_documents(
    request: Request[Any, Any, Any], timeline: PublicTimeline, instance_id: str | None, token: str
) -> PublicTimeline:
    """The timeline with the documents the requester may download."""
    if instance_id is None:
        return timeline
    files = await citizen_documents(documents_of(request), instance_id, token)
    return msgspec.structs.replace(timeline, documents=files)


@get("/timeline/{token:str}/json")
async def timeline_json(request: Request[Any, Any, Any], token: FromPath[str]) -> PublicTimeline:
    """The timeline as JSON, for portals, with each legal deadline explained (the citizen's
    version: no internal reason, no legal-basis wording; extension justifications kept)."""
    from services.workflow.ui.deadline_view import deadline_stories  # ui imports this module

    timeline = await _timeline(request, token)
    instance_id = await _instance_id(request, timeline.protocol)
    if await protected(request, instance_id):
        return status_only(timeline)
    told = await deadline_stories(request, instance_id, public=True) if instance_id else []
    deadlines = msgspec.convert(msgspec.to_builtins(told), list[PublicDeadline])
    timeline = await with_documents(request, timeline, instance_id, token)
    return msgspec.structs.replace(timeline, deadlines=deadlines)


@get("/timeline/{token:str}", media_type="text/html")
async def timeline_page(request: Request[Any, Any, Any], token: FromPath[str]) -> Response[str]:
    """The citizen's page, with the plain-words explanation of each legal deadline."""
    from services.workflow.ui.deadline_view import deadline_stories  # ui imports this module

    timeline = await _timeline(request, token)
    zone_name = platform_of(request).settings.timezone
    instance_id = await _instance_id(request, timeline.protocol)
    if await protected(request, instance_id):
        timeline, told = status_only(timeline), []
    else:
        told = await deadline_stories(request, instance_id, public=True) if instance_id else []
        timeline = await with_documents(request, timeline, instance_id, token)
    return Response(
        render_html(timeline, zone_name, render_deadlines(told, timeline, zone_name)),
        media_type="text/html",
        headers=SECURITY_HEADERS,
    )


@get("/timeline/{token:str}/documents/{document_id:uuid}")
async def timeline_document(
    request: Request[Any, Any, Any], token: FromPath[str], document_id: FromPath[UUID]
) -> Response[bytes]:
    """A document the requester may download (the e-SIC answer, an appeal decision), as an
    attachment; a document that is not theirs or not a citizen one is a plain 404."""
    instance_id = await _instance_id(request, _protocol(request, token))
    if instance_id is None or await protected(request, instance_id):
        raise NotFound("unknown or expired link")
    service = documents_of(request)
    return await serve(service, await citizen_document(service, instance_id, str(document_id)))


def public_router(per_minute: int = DEFAULT_RATE) -> Router:
    limit = RateLimitConfig(rate_limit=("minute", per_minute), store="tramita_public_rate")
    return Router(
        path="/public",
        route_handlers=[timeline_json, timeline_page, timeline_document],
        middleware=[limit.middleware],
        tags=["public"],
    )


ROUTES: list[Any] = [public_router()]
