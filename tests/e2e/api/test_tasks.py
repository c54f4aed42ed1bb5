"""Human tasks over HTTP: list, claim, complete; conflicts and unknown ids."""

from __future__ import annotations

from tests.e2e.api.conftest import Api, start_purchase

UNKNOWN = "019cae6b-6600-7000-8000-0000000000ff"


async def _task(api: Api) -> dict[str, object]:
    instance = await start_purchase(api, 20_000)
    response = await api.client.get(f"/api/v1/instances/{instance['id']}/tasks", headers=api.auth())
    assert response.status_code == 200
    (task,) = response.json()
    return dict(task)


async def test_lists_the_open_approval_task(api: Api) -> None:
    task = await _task(api)
    assert (task["queue"], task["status"]) == ("purchase.managers", "ready")


async def test_claiming_assigns_the_task_to_the_caller(api: Api) -> None:
    task = await _task(api)
    response = await api.client.post(
        f"/api/v1/tasks/{task['id']}/claim", headers=api.auth("manager")
    )
    assert response.status_code == 200
    assert response.json()["status"] == "claimed"


async def test_a_task_claimed_by_someone_else_is_409(api: Api) -> None:
    task = await _task(api)
    await api.client.post(f"/api/v1/tasks/{task['id']}/claim", headers=api.auth("manager"))
    response = await api.client.post(f"/api/v1/tasks/{task['id']}/claim", headers=api.auth())
    assert response.status_code == 409


async def test_completing_with_an_outcome_closes_the_task(api: Api) -> None:
    task = await _task(api)
    response = await api.client.post(
        f"/api/v1/tasks/{task['id']}/complete",
        json={"outcome": "reject", "data": {"approval_comment": "no"}},
        headers=api.auth("manager"),
    )
    assert response.status_code == 200
    assert response.json()["status"] == "completed"


async def test_the_author_completing_their_own_approval_is_403(api: Api) -> None:
    task = await _task(api)
    response = await api.client.post(
        f"/api/v1/tasks/{task['id']}/complete",
        json={"outcome": "approve"},
        headers=api.auth("requester"),
    )
    assert response.status_code == 403


async def test_completing_an_unknown_task_is_404(api: Api) -> None:
    response = await api.client.post(
        f"/api/v1/tasks/{UNKNOWN}/complete", json={"outcome": "approve"}, headers=api.auth()
    )
    assert response.status_code == 404


async def test_a_body_with_unknown_fields_is_400(api: Api) -> None:
    task = await _task(api)
    response = await api.client.post(
        f"/api/v1/tasks/{task['id']}/complete",
        json={"outcome": "approve", "surprise": 1},
        headers=api.auth("manager"),
    )
    assert response.status_code == 400
