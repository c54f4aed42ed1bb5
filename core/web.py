"""The Litestar application factory and the one place errors become RFC 9457 problems.

Controllers raise ``TramitaError`` subclasses and never catch to translate; anything else is a
500 problem with no stack trace, SQL or personal data in the body.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import sqlalchemy as sa
import structlog
from litestar import Litestar, MediaType, Request, Response, get
from litestar.datastructures import Cookie, State
from litestar.enums import ScopeType
from litestar.exceptions import HTTPException, NotFoundException, ValidationException
from litestar.middleware.base import DefineMiddleware
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.spec import Components, SecurityScheme
from litestar.params import FromPath, FromQuery
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.response import Redirect
from litestar.template.config import TemplateConfig
from litestar.types import ASGIApp, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from contracts.errors import ServiceUnavailable, TramitaError, Unauthenticated
from core import i18n, localtime
from core.allow import AllowOnOptionsMiddleware
from core.app import Platform
from core.boundary import BoundaryMiddleware
from core.idempotency import DEFAULT_MAX_BODY, IdempotencyMiddleware
from core.openapi import CompletedJsonRenderPlugin, StrictStructSchemaPlugin
from core.problem_headers import challenge, limit_headers, problem_headers
from core.query_datetimes import refuse_non_iso_datetimes

PROBLEM_JSON = "application/problem+json"
log = structlog.get_logger("tramita.web")


def _problem(
    body: dict[str, Any],
    request: Request[Any, Any, Any],
    headers: dict[str, str] | None = None,
) -> Response[Any]:
    body.setdefault("instance", request.url.path)
    return Response(
        content=body,
        status_code=int(body["status"]),
        media_type=PROBLEM_JSON,
        headers=headers or None,
    )


def tramita_error_handler(request: Request[Any, Any, Any], exc: TramitaError) -> Response[Any]:
    headers = problem_headers(exc)
    if isinstance(exc, Unauthenticated):
        headers["WWW-Authenticate"] = challenge(request)
    body = exc.to_problem()
    if exc.errors:
        # Each field error's sentence in the request's language; its path and code stay.
        body["errors"] = [
            {"path": e.path, "code": e.code, "message": e.message}
            for e in map(i18n.localized, exc.errors)
        ]
    return _problem(body, request, headers)


def http_error_handler(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
    body: dict[str, Any] = {
        "type": f"https://tramita.dev/problems/http-{exc.status_code}",
        "title": exc.detail if isinstance(exc, NotFoundException) else type(exc).__name__,
        "status": exc.status_code,
        "detail": exc.detail,
    }
    if isinstance(exc, ValidationException) and isinstance(exc.extra, list):
        body["type"] = "https://tramita.dev/problems/bad-request"
        body["title"] = "Bad request"
        body["errors"] = [
            {
                "path": str(e.get("key") or e.get("source") or ""),
                "code": "invalid",
                "message": str(e.get("message", "")),
            }
            for e in exc.extra
            if isinstance(e, dict)
        ]
    return _problem(body, request, limit_headers(exc))


def database_down_handler(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    """A database that does not answer is a 503 the client may retry, not a 500; with tenants
    on several databases it is only the acting tenant's (``core.placement``)."""
    log.warning("database_unavailable", error_type=type(exc).__name__, path=request.url.path)
    down = ServiceUnavailable(
        i18n.N_("the database did not answer; try again shortly"), retry_after=5
    )
    return tramita_error_handler(request, down)


def internal_error_handler(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    log.error("unhandled_error", error_type=type(exc).__name__, path=request.url.path)
    return _problem(
        {
            "type": "https://tramita.dev/problems/internal",
            "title": "Internal error",
            "status": 500,
            "detail": "The server failed to handle this request; it has been logged.",
        },
        request,
    )


@get(
    "/health",
    media_type=MediaType.JSON,
    responses={
        503: ResponseSpec(
            data_container=dict[str, Any],
            description="A dependency is unreachable; the body names it.",
            generate_examples=False,
        )
    },
)
async def health(state: State) -> Response[dict[str, Any]]:
    """Database (and, when configured, broker) reachability."""
    platform: Platform = state.platform
    checks: dict[str, str] = {}
    try:
        async with platform.database.connect() as conn:
            await conn.execute(sa.text("SELECT 1"))
        checks["database"] = "ok"
    except Exception as exc:  # noqa: BLE001 - health reports, never raises
        checks["database"] = f"error: {type(exc).__name__}"
    for name, probe in platform.extras.get("health_checks", {}).items():
        try:
            await probe()
            checks[name] = "ok"
        except Exception as exc:  # noqa: BLE001
            checks[name] = f"error: {type(exc).__name__}"
    healthy = all(v == "ok" for v in checks.values())
    body = {
        "status": "ok" if healthy else "degraded",
        "checks": checks,
        "plugins": platform.host.names(),
        "mode": "plain" if platform.plain_mode else "workflow",
    }
    return Response(body, status_code=200 if healthy else 503)


TEMPLATES_OPT = "templates"
"""Key of a router's ``opt`` (or of ``platform.extras``) listing the template directories a
plugin's pages render from; the app gets one Jinja2 template config covering them all."""

LOCALES_OPT = "locales"
"""Key of a router's ``opt`` listing the ``locale/`` directories of the catalogs its pages use."""

FILTERS_OPT = "jinja_filters"
"""Key of a router's ``opt`` mapping names to callables every template gets, both as Jinja2
filters and as globals (the engine's labels for statuses, events and node types)."""


class LocaleMiddleware:
    """Sets the request's locale (``core.i18n``): the ``tramita_lang`` cookie, else
    ``Accept-Language``, else pt-BR. Pages and their messages read it through gettext."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        accept: str | None = None
        chosen: str | None = None
        for name, value in scope.get("headers", ()):
            if name == b"accept-language":
                accept = value.decode("latin-1")
            elif name == b"cookie":
                for part in value.decode("latin-1").split(";"):
                    key, _, val = part.strip().partition("=")
                    if key == i18n.LANG_COOKIE:
                        chosen = val
        with i18n.using(i18n.negotiate(accept, chosen)):
            await self.app(scope, receive, send)


@get("/lang/{code:str}", include_in_schema=False)
async def choose_language(code: FromPath[str], next: FromQuery[str | None] = None) -> Redirect:
    """Remember the visitor's language (a cookie for a year) and go back where they were."""
    locale = i18n.normalise(code)
    if locale is None:
        raise NotFoundException(detail="unknown language")
    target = next if next and next.startswith("/") and not next.startswith("//") else "/"
    return Redirect(
        path=target,
        status_code=303,
        cookies=[
            Cookie(
                key=i18n.LANG_COOKIE,
                value=locale,
                path="/",
                max_age=365 * 24 * 3600,
                httponly=True,
                samesite="lax",
            )
        ],
    )


def _install(environment: Any, zone_name: str) -> None:
    i18n.install(environment)
    localtime.install(environment, zone_name)


def _template_config(platform: Platform, routes: list[Any]) -> TemplateConfig[Any] | None:
    """One template config for every directory plugins declare, or none when no plugin
    serves pages (the kernel's own routes are JSON only)."""
    dirs: list[Path] = [Path(d) for d in platform.extras.get(TEMPLATES_OPT, ())]
    filters: dict[str, Any] = {}
    for route in routes:
        opt = getattr(route, "opt", None) or {}
        dirs.extend(Path(d) for d in opt.get(TEMPLATES_OPT, ()))
        for locale_dir in opt.get(LOCALES_OPT, ()):
            i18n.add_catalog_directory(locale_dir)
        filters.update(opt.get(FILTERS_OPT, {}))
    if not dirs:
        return None

    def _install_all(engine: JinjaTemplateEngine) -> None:
        _install(engine.engine, platform.settings.timezone)
        engine.engine.filters.update(filters)
        engine.engine.globals.update(filters)

    return TemplateConfig(
        directory=list(dict.fromkeys(dirs)),
        engine=JinjaTemplateEngine,
        engine_callback=_install_all,
    )


async def _close_platform(app: Litestar) -> None:
    platform: Platform = app.state.platform
    await platform.close()


def create_app(platform: Platform, *, debug: bool = False) -> Litestar:
    """Build the application for an already booted platform (lifespan closes it).

    Handlers, middleware and the shutdown hook read the platform from ``app.state`` on each
    request; what is fixed at construction is the route set, the template directories, the
    time zone the pages show and the trusted proxies."""
    routes = [*platform.host.routes(), *platform.collected.routes]
    structs = StrictStructSchemaPlugin()
    return Litestar(
        route_handlers=[health, choose_language, *routes],
        template_config=_template_config(platform, routes),
        state=State({"platform": platform}),
        exception_handlers={
            TramitaError: tramita_error_handler,
            HTTPException: http_error_handler,
            sa.exc.OperationalError: database_down_handler,
            sa.exc.InterfaceError: database_down_handler,
            Exception: internal_error_handler,
        },
        on_shutdown=[_close_platform],
        # Proxy headers first, so that rate limits and login throttling see the real client
        # (forwarded headers count only from the configured proxies); then the locale (error
        # pages read it), then the boundary: input no database can store is refused before an
        # idempotency key is reserved.
        before_request=refuse_non_iso_datetimes,
        middleware=[
            DefineMiddleware(
                cast(Any, ProxyHeadersMiddleware),  # uvicorn types ASGI apps its own way
                trusted_hosts=list(platform.settings.trusted_proxies),
            ),
            LocaleMiddleware,
            BoundaryMiddleware(max_body=DEFAULT_MAX_BODY),
            AllowOnOptionsMiddleware(),
            IdempotencyMiddleware(max_body=DEFAULT_MAX_BODY),
        ],
        request_max_body_size=DEFAULT_MAX_BODY,
        plugins=[structs],
        openapi_config=OpenAPIConfig(
            title="Tramita",
            version="0.1.0",
            path="/schema",
            render_plugins=[CompletedJsonRenderPlugin(structs)],
            components=Components(
                security_schemes={
                    "bearer": SecurityScheme(type="http", scheme="bearer", bearer_format="JWT")
                }
            ),
        ),
        debug=debug,
        # Logging is the process's (core.logging): Litestar's default config would replace the
        # root handler with its plain-text one.
        logging_config=None,
    )
