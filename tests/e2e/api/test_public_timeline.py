"""The citizen's timeline: signed expiring links; labels and dates only, nothing personal."""

from __future__ import annotations

from datetime import timedelta

from core.clock import FixedClock
from services.workflow.public.routes import public_router
from tests.e2e.api.conftest import Api
from tests.e2e.api.esic_like import DEFINITION, PERSONAL

INTERNAL = [n["id"] for n in DEFINITION["nodes"]] + [n["name"] for n in DEFINITION["nodes"]]


async def _answered_request(api: Api) -> tuple[dict[str, object], str]:
    started = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "esic_like.request", "context": PERSONAL},
        headers=api.auth("requester"),
    )
    instance = started.json()
    await api.drain()
    (task,) = (
        await api.client.get(f"/api/v1/instances/{instance['id']}/tasks", headers=api.auth())
    ).json()
    done = await api.client.post(
        f"/api/v1/tasks/{task['id']}/complete",
        json={"data": {"resposta": "Segue a planilha, Joana Pereira da Silva"}},
        headers=api.auth("manager"),
    )
    assert done.status_code == 200, done.text
    link = await api.client.post(
        f"/api/v1/instances/{instance['id']}/public-link", headers=api.auth("reader")
    )
    assert link.status_code == 201
    return instance, link.json()["path"]


async def test_the_timeline_shows_the_public_labels_in_order(api: Api) -> None:
    instance, path = await _answered_request(api)
    response = await api.client.get(f"{path}/json")
    assert response.status_code == 200
    body = response.json()
    assert body["protocol"] == instance["protocol"]
    assert [s["label"] for s in body["steps"]] == ["Recebido", "Em análise", "Respondido"]
    assert body["closed"] is True


async def test_the_timeline_holds_no_personal_data_internal_names_or_ids(api: Api) -> None:
    instance, path = await _answered_request(api)
    texts = [(await api.client.get(f"{path}/json")).text, (await api.client.get(path)).text]
    forbidden = [*PERSONAL.values(), *INTERNAL, "Joana", str(instance["id"]), "manager", "admin"]
    for text in texts:
        leaked = [value for value in forbidden if value in text]
        assert leaked == []


async def test_the_page_is_html_for_citizens(api: Api) -> None:
    _, path = await _answered_request(api)
    response = await api.client.get(path)
    assert response.headers["content-type"].startswith("text/html")
    assert "Respondido" in response.text


async def test_an_expired_link_is_404(api: Api, clock: FixedClock) -> None:
    _, path = await _answered_request(api)
    clock.advance(timedelta(days=181))
    assert (await api.client.get(f"{path}/json")).status_code == 404


async def test_a_tampered_link_is_404(api: Api) -> None:
    _, path = await _answered_request(api)
    assert (await api.client.get(f"{path}x/json")).status_code == 404


async def test_the_public_endpoints_are_rate_limited(api: Api) -> None:
    router = public_router(per_minute=3)
    statuses = []
    from litestar import Litestar
    from litestar.testing import AsyncTestClient

    from contracts.errors import TramitaError
    from core.web import tramita_error_handler

    app = Litestar(
        route_handlers=[router],
        state=api.client.app.state,
        exception_handlers={TramitaError: tramita_error_handler},
    )
    async with AsyncTestClient(app=app) as client:
        for _ in range(4):
            statuses.append((await client.get("/public/timeline/forged/json")).status_code)
    assert statuses == [404, 404, 404, 429]


async def test_the_public_page_sends_the_same_security_headers_as_the_portal(api: Api) -> None:
    _, path = await _answered_request(api)
    public = await api.client.get(path)
    portal = await api.client.get(path.replace("/public/", "/portal/", 1))
    assert portal.status_code == public.status_code == 200
    names = ("content-security-policy", "x-content-type-options", "referrer-policy")
    for name in (*names, "x-frame-options", "cache-control"):
        assert public.headers.get(name) == portal.headers[name], name


async def test_a_429_carries_the_rate_limit_headers_and_retry_after(api: Api) -> None:
    from litestar import Litestar
    from litestar.exceptions import HTTPException
    from litestar.testing import AsyncTestClient

    from contracts.errors import TramitaError
    from core.web import http_error_handler, tramita_error_handler

    app = Litestar(
        route_handlers=[public_router(per_minute=2)],
        state=api.client.app.state,
        exception_handlers={
            TramitaError: tramita_error_handler,
            HTTPException: http_error_handler,
        },
    )
    async with AsyncTestClient(app=app) as client:
        first = await client.get("/public/timeline/forged/json")
        await client.get("/public/timeline/forged/json")
        refused = await client.get("/public/timeline/forged/json")
    assert (first.headers["ratelimit-limit"], first.headers["ratelimit-remaining"]) == ("2", "1")
    assert refused.status_code == 429
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert refused.headers["ratelimit-limit"] == "2"
    assert refused.headers["ratelimit-remaining"] == "0"
    assert refused.headers["ratelimit-policy"] == "2; w=60"
    reset = int(refused.headers["ratelimit-reset"])
    assert 0 < reset <= 60
    assert refused.headers["retry-after"] == str(reset)


async def test_the_portals_429_page_carries_retry_after(api: Api) -> None:
    for _ in range(60):
        assert (await api.client.get("/portal/timeline/forged")).status_code == 404
    refused = await api.client.get("/portal/timeline/forged")
    assert refused.status_code == 429
    assert refused.headers["content-type"].startswith("text/html")
    assert refused.headers["retry-after"] == refused.headers["ratelimit-reset"]
    assert refused.headers["ratelimit-limit"] == "60"
