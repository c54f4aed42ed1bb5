"""``Idempotency-Key``: the first response is replayed; a different body under it is a 422."""

from __future__ import annotations

from datetime import timedelta

from core.clock import FixedClock
from tests.e2e.api.conftest import Api
from tests.fakes.purchase import order

START = {"definition_key": "purchase.approval", "context": order(20_000)}


async def _start(api: Api, key: str, body: dict[str, object] = START, user: str = "requester"):  # type: ignore[no-untyped-def]
    return await api.client.post(
        "/api/v1/instances", json=body, headers=api.auth(user, **{"Idempotency-Key": key})
    )


async def _count(api: Api) -> int:
    page = (await api.client.get("/api/v1/instances", headers=api.auth())).json()
    return len(page["items"])


async def test_a_repeated_request_replays_the_first_response(api: Api) -> None:
    first = await _start(api, "k-1")
    again = await _start(api, "k-1")
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert again.headers["idempotent-replayed"] == "true"
    assert await _count(api) == 1


async def test_the_same_key_with_a_different_body_is_422(api: Api) -> None:
    await _start(api, "k-2")
    other = {"definition_key": "purchase.approval", "context": order(30_000)}
    response = await _start(api, "k-2", other)
    assert response.status_code == 422
    assert response.json()["type"] == "https://tramita.dev/problems/idempotency-key-reused"
    assert await _count(api) == 1


async def test_keys_belong_to_one_user(api: Api) -> None:
    await _start(api, "shared", user="requester")
    response = await _start(api, "shared", user="admin")
    assert response.status_code == 201
    assert "idempotent-replayed" not in response.headers
    assert await _count(api) == 2


async def test_an_expired_key_runs_the_request_again(api: Api, clock: FixedClock) -> None:
    await _start(api, "k-3")
    clock.advance(timedelta(seconds=api.platform.settings.idempotency_ttl_s + 1))
    api.tokens["requester"] = await _fresh_token(api, "requester")
    response = await _start(api, "k-3")
    assert response.status_code == 201
    assert "idempotent-replayed" not in response.headers


async def test_a_client_error_is_replayed_too(api: Api) -> None:
    missing = {"definition_key": "nope.nothing"}
    first = await _start(api, "k-4", missing)
    again = await _start(api, "k-4", missing)
    assert (first.status_code, again.status_code) == (404, 404)
    assert again.headers["idempotent-replayed"] == "true"


async def test_a_refused_authorisation_is_not_stored(api: Api) -> None:
    refused = await _start(api, "k-5", user="reader")
    assert refused.status_code == 403
    assert "idempotent-replayed" not in (await _start(api, "k-5", user="reader")).headers


async def test_task_completion_is_idempotent(api: Api) -> None:
    instance = (await _start(api, "k-6")).json()
    await api.drain()
    (task,) = (
        await api.client.get(f"/api/v1/instances/{instance['id']}/tasks", headers=api.auth())
    ).json()
    url = f"/api/v1/tasks/{task['id']}/complete"
    body = {"outcome": "approve", "data": {"approval_comment": "ok"}}
    headers = api.auth("manager", **{"Idempotency-Key": "done-once"})
    first = await api.client.post(url, json=body, headers=headers)
    again = await api.client.post(url, json=body, headers=headers)
    assert (first.status_code, again.status_code) == (200, 200)
    assert again.json() == first.json()


async def _fresh_token(api: Api, profile: str) -> str:
    from core.auth import issue_token, verify_token

    platform = api.platform
    old = api.tokens[profile]
    user_id = verify_token(platform.settings.secret_key, old, now=_issued_at(api))
    return issue_token(platform.settings.secret_key, user_id, now=platform.clock.now())


def _issued_at(api: Api):  # type: ignore[no-untyped-def]
    from tests.conftest import T0

    return T0


async def test_an_overlong_key_is_422_problem(api: Api) -> None:
    response = await _start(api, "k" * 201)
    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/problem+json")
