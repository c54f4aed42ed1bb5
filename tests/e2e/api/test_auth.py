"""Identity and authorisation: bearer tokens, permissions, and a guard on every route."""

from __future__ import annotations

from datetime import timedelta

from litestar import Litestar

from core.auth import issue_token, permission_of
from core.clock import FixedClock
from tests.e2e.api.conftest import Api

UNGUARDED_PREFIXES = (
    "/health",
    "/schema",
    "/public",
    "/metrics",
    "/cms/login",
    "/cms/logout",
    "/cms/tenant",  # any signed-in person switches among their own tenants (session_user)
    "/portal",
    "/static",
    "/lang/",
)
UNGUARDED_PATHS = {"/", "/cms", "/cms/workflow", "/favicon.ico"}
"""The landing page and redirects: they show nothing but links (see ui/landing.py)."""


def _unguarded_routes(app: Litestar) -> list[str]:
    missing = []
    for route in app.routes:
        if route.path.startswith(UNGUARDED_PREFIXES) or route.path in UNGUARDED_PATHS:
            continue
        for handler in getattr(route, "route_handlers", []):
            if handler.http_methods == {"OPTIONS"}:  # Litestar's automatic CORS preflight
                continue
            if not any(permission_of(g) for g in handler.resolve_guards()):
                missing.append(f"{sorted(handler.http_methods)} {route.path}")
    return missing


async def test_every_route_declares_the_permission_it_needs(api: Api) -> None:
    app = api.client.app
    assert [r.path for r in app.routes if r.path.startswith("/api/v1")], "no API routes found"
    assert _unguarded_routes(app) == []


async def test_a_request_without_a_token_is_401_problem(api: Api) -> None:
    response = await api.client.get("/api/v1/workflows")
    assert response.status_code == 401
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["type"] == "https://tramita.dev/problems/unauthenticated"


async def test_a_forged_token_is_401(api: Api) -> None:
    forged = issue_token("another-secret", "someone", now=api.platform.clock.now())
    response = await api.client.get(
        "/api/v1/workflows", headers={"Authorization": f"Bearer {forged}"}
    )
    assert response.status_code == 401


async def test_an_expired_token_is_401(api: Api, clock: FixedClock) -> None:
    clock.advance(timedelta(hours=9))
    response = await api.client.get("/api/v1/workflows", headers=api.auth("reader"))
    assert response.status_code == 401
    assert response.json()["detail"] == "the bearer token has expired"


async def test_a_token_for_an_unknown_user_is_401(api: Api) -> None:
    token = issue_token(api.platform.settings.secret_key, "ghost", now=api.platform.clock.now())
    response = await api.client.get(
        "/api/v1/workflows", headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 401


async def test_a_user_without_the_permission_is_403_naming_it(api: Api) -> None:
    response = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "purchase.approval", "context": {}},
        headers=api.auth("reader"),
    )
    assert response.status_code == 403
    assert response.json()["permission"] == "workflow.start"


async def test_a_401_without_a_token_challenges_for_a_bearer_token(api: Api) -> None:
    response = await api.client.get("/api/v1/workflows")
    assert response.headers["www-authenticate"] == 'Bearer realm="tramita"'


async def test_a_401_for_a_bad_token_names_the_invalid_token_error(api: Api) -> None:
    response = await api.client.get(
        "/api/v1/workflows", headers={"Authorization": "Bearer not-a-token"}
    )
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == 'Bearer realm="tramita", error="invalid_token"'


async def test_a_token_longer_than_the_configured_cap_is_401(api: Api) -> None:
    user = await api.platform.directory.create_user(
        "long-lived", display_name="Long lived", profile="reader"
    )
    cap = api.platform.settings.token_max_ttl_s
    token = issue_token(
        api.platform.settings.secret_key, user.id, now=api.platform.clock.now(), ttl_s=cap + 1
    )
    response = await api.client.get(
        "/api/v1/workflows", headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 401
    assert response.json()["detail"] == "the bearer token outlives the configured maximum lifetime"
