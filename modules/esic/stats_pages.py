"""The e-SIC statistics pages: staff (``/cms/esic/estatisticas``, exact figures, CSV files)
and public (``/public/esic/transparencia``, aggregates with small counts suppressed).

The staff page rides on the admin pages' session cookie and checks ``esic.statistics`` like
the other admin pages (``core.page_session``); without a session it sends to the login page.
The public page needs no sign-in and is rate-limited per client like the rest of ``/public``.
Both count from the records at each request, in the database
(``modules.esic.stats_counts``); the CSV files are sent as they are read
(``modules.esic.stats_export``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote
from zoneinfo import ZoneInfo

from litestar import Request, Response, Router, get
from litestar.middleware.rate_limit import RateLimitConfig
from litestar.response import Redirect, Stream, Template

from contracts.errors import Unauthenticated
from core.i18n import add_catalog_directory
from core.localtime import date_text
from core.page_session import page_requires
from core.web import LOCALES_OPT, TEMPLATES_OPT
from modules.esic.stats_counts import load_views
from modules.esic.stats_export import Which, csv_lines
from modules.esic.stats_view import Window, report, window_of

TEMPLATES = Path(__file__).parent / "templates"
LOCALE_DIR = Path(__file__).parent / "locale"
add_catalog_directory(LOCALE_DIR)
STATISTICS_PERMISSION = "esic.statistics"
STAFF_PATH = "/cms/esic/estatisticas"
PUBLIC_PATH = "/public/esic/transparencia"
CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}
_OPT = {TEMPLATES_OPT: [str(TEMPLATES)], LOCALES_OPT: [str(LOCALE_DIR)]}


def _platform(request: Request[Any, Any, Any]) -> Any:
    return request.app.state.platform


def _window(request: Request[Any, Any, Any]) -> tuple[Window, Any]:
    platform = _platform(request)
    zone = ZoneInfo(platform.settings.timezone)
    params = {k: str(v) for k, v in request.query_params.items() if k in ("de", "ate")}
    return window_of(params, platform.clock.now().astimezone(zone).date()), zone


async def _page(request: Request[Any, Any, Any], *, public: bool) -> Template:
    window, zone = _window(request)
    views = await load_views(_platform(request), window.first, window.last)
    return Template(
        template_name="esic_statistics.html",
        context={
            "public": public,
            "path": request.url.path,
            "window": window,
            "report": report(views, public=public),
            "engine": views.engine,
            "base": PUBLIC_PATH if public else STAFF_PATH,
            "d": lambda value: date_text(value, zone.key),
        },
        headers=HEADERS,
    )


async def _csv(request: Request[Any, Any, Any], which: Which) -> Stream:
    window, _ = _window(request)
    lines = csv_lines(_platform(request), which, window.first, window.last)
    name = f"{which}-{window.first:%Y-%m}-{window.last:%Y-%m}.csv"
    return Stream(
        (line.encode("utf-8") async for line in lines),
        media_type="text/csv; charset=utf-8",
        headers={**HEADERS, "content-disposition": f'attachment; filename="{name}"'},
    )


def _to_login(request: Request[Any, Any, Any], _exc: Exception) -> Response[Any]:
    target = request.url.path if request.method == "GET" else STAFF_PATH
    return Redirect(path=f"/cms/login?next={quote(target)}", status_code=303)


def staff_statistics_router() -> Router:
    @get("/", media_type="text/html", include_in_schema=False)
    async def statistics_page(request: Request[Any, Any, Any]) -> Template:
        return await _page(request, public=False)

    @get("/pedidos.csv", include_in_schema=False)
    async def requests_csv(request: Request[Any, Any, Any]) -> Stream:
        return await _csv(request, "pedidos")

    @get("/recursos.csv", include_in_schema=False)
    async def appeals_csv(request: Request[Any, Any, Any]) -> Stream:
        return await _csv(request, "recursos")

    return Router(
        path=STAFF_PATH,
        route_handlers=[statistics_page, requests_csv, appeals_csv],
        guards=[page_requires(STATISTICS_PERMISSION)],
        exception_handlers={Unauthenticated: _to_login},
        opt=_OPT,
        tags=["esic"],
    )


def public_statistics_router(per_minute: int = 60) -> Router:
    @get("/", media_type="text/html", include_in_schema=False)
    async def transparency_page(request: Request[Any, Any, Any]) -> Template:
        return await _page(request, public=True)

    limit = RateLimitConfig(rate_limit=("minute", per_minute), store="tramita_public_rate")
    return Router(
        path=PUBLIC_PATH,
        route_handlers=[transparency_page],
        middleware=[limit.middleware],
        opt=_OPT,
        tags=["public"],
    )
