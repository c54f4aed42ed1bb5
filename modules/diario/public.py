"""``/public/diario``: the editions anyone may read, download and verify (HTML, no script).

No authentication, rate-limited per client address like the rest of ``/public``. The
verification page takes the code printed on every page of an edition and says whether the
stored PDF is intact and signed by a trusted certificate, and whose signature it carries.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from litestar import Request, Response, Router, get
from litestar.middleware.rate_limit import RateLimitConfig
from litestar.params import FromPath, FromQuery
from litestar.response import Template

from contracts.errors import NotFound
from core.localtime import date_text, datetime_text
from core.web import LOCALES_OPT, TEMPLATES_OPT
from modules.diario.editions import EditionDesk, Verification
from modules.diario.records import Runtime
from modules.diario.render import LOCALE_DIR

TEMPLATES = Path(__file__).parent / "templates"
CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
}
_CODE_MAX = 20


def _desk(request: Request[Any, Any, Any], runtime: Runtime) -> EditionDesk:
    return EditionDesk(request.app.state.platform, runtime.config)


def _page(
    request: Request[Any, Any, Any], template: str, status_code: int = 200, **context: Any
) -> Template:
    zone = request.app.state.platform.settings.timezone
    return Template(
        template_name=template,
        context={
            "path": request.url.path,
            "d": lambda value: date_text(value, zone),
            "dt": lambda value: datetime_text(value, zone),
            **context,
        },
        status_code=status_code,
        headers={**HEADERS, "cache-control": "no-cache"},
    )


def public_diario_router(runtime: Runtime, per_minute: int = 60) -> Router:
    @get("/", media_type="text/html", include_in_schema=False)
    async def editions_page(request: Request[Any, Any, Any]) -> Template:
        desk = _desk(request, runtime)
        return _page(
            request,
            "diario_editions.html",
            editions=await desk.published(),
            municipality=desk.config.municipality,
        )

    @get("/edicao/{number:int}/pdf", include_in_schema=False)
    async def edition_pdf(
        request: Request[Any, Any, Any], number: FromPath[int]
    ) -> Response[bytes]:
        edition, pdf = await _desk(request, runtime).pdf(number)
        name = f"diario-oficial-{edition.number}-{edition.published_on.isoformat()}.pdf"
        return Response(
            pdf,
            media_type="application/pdf",
            headers={
                **HEADERS,
                "content-disposition": f'attachment; filename="{name}"',
                "cache-control": "public, max-age=86400, immutable",
            },
        )

    async def _verification(request: Request[Any, Any, Any], code: str | None) -> Template:
        desk = _desk(request, runtime)
        result: Verification | None = None
        status = 200
        unknown = False
        cleaned = (code or "").strip()[:_CODE_MAX]
        if cleaned:
            try:
                result = await desk.verify(cleaned)
            except NotFound:
                unknown, status = True, 404
        return _page(
            request,
            "diario_verify.html",
            status_code=status,
            code=cleaned,
            result=result,
            unknown=unknown,
            municipality=desk.config.municipality,
        )

    @get("/verificar", media_type="text/html", include_in_schema=False)
    async def verify_form(
        request: Request[Any, Any, Any], codigo: FromQuery[str | None] = None
    ) -> Template:
        return await _verification(request, codigo)

    @get("/verificar/{code:str}", media_type="text/html", include_in_schema=False)
    async def verify_page(request: Request[Any, Any, Any], code: FromPath[str]) -> Template:
        return await _verification(request, code)

    limit = RateLimitConfig(rate_limit=("minute", per_minute), store="tramita_public_rate")
    return Router(
        path="/public/diario",
        route_handlers=[editions_page, edition_pdf, verify_form, verify_page],
        middleware=[limit.middleware],
        opt={TEMPLATES_OPT: [str(TEMPLATES)], LOCALES_OPT: [str(LOCALE_DIR)]},
        tags=["public"],
    )
