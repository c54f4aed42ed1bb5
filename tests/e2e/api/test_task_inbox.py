"""``GET /api/v1/tasks``: the caller's inbox with its filters and keyset pages."""

from __future__ import annotations

from typing import Any

from tests.e2e.api.conftest import Api
from tests.e2e.api.human_helpers import claim, open_tasks, user_id


async def _inbox(api: Api, user: str = "manager", **params: Any) -> Any:
    return await api.client.get("/api/v1/tasks", params=params, headers=api.auth(user))


async def test_the_inbox_lists_the_tasks_of_the_callers_queues(api: Api) -> None:
    tasks = await open_tasks(api, 2)
    response = await _inbox(api)
    assert response.status_code == 200
    assert sorted(t["id"] for t in response.json()["items"]) == sorted(t["id"] for t in tasks)


async def test_pages_follow_the_cursor_without_overlap_until_it_ends(api: Api) -> None:
    tasks = await open_tasks(api, 3)
    first = (await _inbox(api, limit=2, sort="created_at")).json()
    second = (await _inbox(api, limit=2, sort="created_at", cursor=first["next_cursor"])).json()
    seen = [t["id"] for t in first["items"] + second["items"]]
    assert seen == [t["id"] for t in tasks]
    assert second["next_cursor"] is None


async def test_a_cursor_for_another_sort_order_is_422(api: Api) -> None:
    await open_tasks(api, 2)
    first = (await _inbox(api, limit=1, sort="created_at")).json()
    response = await _inbox(api, limit=1, sort="-priority", cursor=first["next_cursor"])
    assert response.status_code == 422
    assert response.json()["errors"][0]["code"] == "invalid_cursor"


async def test_a_page_larger_than_the_cap_is_400(api: Api) -> None:
    response = await _inbox(api, limit=101)
    assert response.status_code == 400


async def test_assignee_me_lists_only_what_the_caller_claimed(api: Api) -> None:
    mine, _ = await open_tasks(api, 2)
    await claim(api, mine["id"])
    items = (await _inbox(api, assignee="me")).json()["items"]
    assert [(t["id"], t["assignee"]) for t in items] == [(mine["id"], user_id(api, "manager"))]


async def test_status_and_instance_filters_narrow_the_list(api: Api) -> None:
    first, second = await open_tasks(api, 2)
    await claim(api, first["id"])
    claimed = (await _inbox(api, status="claimed")).json()["items"]
    by_instance = (await _inbox(api, instance_id=second["instance_id"])).json()["items"]
    assert [t["id"] for t in claimed] == [first["id"]]
    assert [t["id"] for t in by_instance] == [second["id"]]


async def test_a_date_filter_without_a_time_zone_is_400(api: Api) -> None:
    response = await _inbox(api, due_from="2026-03-01T00:00:00")
    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "naive_datetime"


async def test_every_queue_without_the_supervisor_permission_is_403(api: Api) -> None:
    response = await _inbox(api, scope="all")
    assert response.status_code == 403
    assert response.json()["permission"] == "workflow.admin"


async def test_a_supervisor_sees_every_queue(api: Api) -> None:
    tasks = await open_tasks(api, 1)
    response = await _inbox(api, "admin", scope="all")
    assert [t["id"] for t in response.json()["items"]] == [tasks[0]["id"]]


async def test_the_inbox_without_the_tasks_permission_is_403(api: Api) -> None:
    response = await _inbox(api, "reader")
    assert response.status_code == 403


async def test_a_filter_holding_a_nul_character_is_400(api: Api) -> None:
    response = await _inbox(api, queue="purchase\x00managers")
    assert response.status_code == 400
