"""The application factory: health, and every error as RFC 9457 problem details."""

from __future__ import annotations

from litestar import get
from litestar.testing import AsyncTestClient

from contracts.errors import FieldError, NotFound, ValidationFailed
from core.app import Platform
from core.web import create_app


@get("/boom/tramita", sync_to_thread=False)
def raises_tramita() -> None:
    raise ValidationFailed(
        "2 fields are invalid",
        errors=[FieldError(path="cpf", code="cpf", message="The CPF check digits do not match.")],
    )


@get("/boom/missing", sync_to_thread=False)
def raises_not_found() -> None:
    raise NotFound("no such instance", instance_id="abc")


@get("/boom/crash", sync_to_thread=False)
def crashes() -> None:
    raise RuntimeError("SELECT secret FROM citizens WHERE cpf = '123'")


async def _client(platform: Platform) -> AsyncTestClient:  # type: ignore[type-arg]
    platform.collected.routes.extend([raises_tramita, raises_not_found, crashes])
    return AsyncTestClient(app=create_app(platform))


async def test_health_reports_the_database_and_mode(platform: Platform) -> None:
    async with await _client(platform) as client:
        response = await client.get("/health")
    assert response.status_code == 200
    body = response.json()
    assert body["checks"] == {"database": "ok"}
    assert "diario" in body["plugins"]


async def test_tramita_errors_become_problem_details_with_field_errors(
    platform: Platform,
) -> None:
    async with await _client(platform) as client:
        response = await client.get("/boom/tramita")
    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json() == {
        "type": "https://tramita.dev/problems/validation-failed",
        "title": "Validation failed",
        "status": 422,
        "detail": "2 fields are invalid",
        "instance": "/boom/tramita",
        "errors": [{"path": "cpf", "code": "cpf", "message": "The CPF check digits do not match."}],
    }


async def test_not_found_carries_the_id(platform: Platform) -> None:
    async with await _client(platform) as client:
        response = await client.get("/boom/missing")
    assert response.status_code == 404
    assert response.json()["instance_id"] == "abc"


async def test_unknown_route_is_a_problem_too(platform: Platform) -> None:
    async with await _client(platform) as client:
        response = await client.get("/nowhere")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/problem+json")


async def test_a_crash_leaks_no_sql_or_data(platform: Platform) -> None:
    async with await _client(platform) as client:
        response = await client.get("/boom/crash")
    assert response.status_code == 500
    text = response.text
    assert "SELECT" not in text and "cpf" not in text and "Traceback" not in text
    assert response.json()["type"] == "https://tramita.dev/problems/internal"
