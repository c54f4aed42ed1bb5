"""``POST /api/v1/tasks/bulk`` on both sides of the background threshold (both backends): up to
it the answer lists each task; past it the request starts a background operation (202), whose
refusals carry the same codes, and a double submit answers the same operation."""

from __future__ import annotations

from typing import Any

from services.workflow.runtime.services.operations import OperationService
from tests.e2e.api.conftest import Api
from tests.e2e.api.human_helpers import UNKNOWN, claim, open_tasks

BULK = "/api/v1/tasks/bulk"


async def _task(api: Api, task: dict[str, Any]) -> dict[str, Any]:
    response = await api.client.get(
        f"/api/v1/instances/{task['instance_id']}/tasks", headers=api.auth("manager")
    )
    (found,) = [t for t in response.json() if t["id"] == task["id"]]
    return dict(found)


def _ops(api: Api, threshold: int) -> OperationService:
    operations = api.service.operations
    assert operations is not None
    operations.always = False
    operations.threshold = threshold
    return operations


async def _bulk(api: Api, body: dict[str, Any], user: str = "manager") -> Any:
    return await api.client.post(BULK, json=body, headers=api.auth(user))


async def test_a_selection_up_to_the_threshold_answers_each_task_in_the_request(api: Api) -> None:
    _ops(api, threshold=3)
    tasks = await open_tasks(api, 2)
    ids = [tasks[0]["id"], UNKNOWN, tasks[1]["id"]]
    response = await _bulk(api, {"action": "claim", "task_ids": ids})
    assert response.status_code == 200
    assert [(i["task_id"], i["ok"]) for i in response.json()["items"]] == [
        (tasks[0]["id"], True),
        (UNKNOWN, False),
        (tasks[1]["id"], True),
    ]
    listing = await api.client.get("/api/v1/operations", headers=api.auth("manager"))
    assert listing.json() == []


async def test_a_selection_past_the_threshold_starts_an_operation_with_refusals(
    api: Api,
) -> None:
    _ops(api, threshold=2)
    tasks = await open_tasks(api, 3)
    await claim(api, tasks[1]["id"], user="admin")
    response = await _bulk(api, {"action": "claim", "task_ids": [t["id"] for t in tasks]})
    assert response.status_code == 202
    started = response.json()
    assert (started["kind"], started["status"], started["total"]) == ("bulk_claim", "queued", 3)

    await api.drain()
    body = (
        await api.client.get(f"/api/v1/operations/{started['id']}", headers=api.auth("manager"))
    ).json()
    assert (body["status"], body["done"], body["refused"]) == ("finished", 2, 1)
    assert [(r["item_id"], r["code"]) for r in body["refusals"]] == [
        (tasks[1]["id"], "claimed_by_other")
    ]
    assert (await _task(api, tasks[0]))["status"] == "claimed"


async def test_a_reassignment_past_the_threshold_is_a_forward_operation(api: Api) -> None:
    _ops(api, threshold=1)
    tasks = await open_tasks(api, 2)
    body = {
        "action": "reassign",
        "task_ids": [t["id"] for t in tasks],
        "to_queue": "purchase.approval.operators",
    }
    response = await _bulk(api, body)
    assert response.status_code == 202
    assert response.json()["kind"] == "bulk_forward"
    await api.drain()
    for task in tasks:
        assert (await _task(api, task))["queue"] == "purchase.approval.operators"


async def test_an_abandon_past_the_threshold_refuses_what_the_caller_may_not_give_back(
    api: Api,
) -> None:
    _ops(api, threshold=1)
    tasks = await open_tasks(api, 2)
    await claim(api, tasks[0]["id"], user="manager")
    await claim(api, tasks[1]["id"], user="admin")
    response = await _bulk(api, {"action": "abandon", "task_ids": [t["id"] for t in tasks]})
    assert response.status_code == 202
    assert response.json()["kind"] == "bulk_abandon"
    await api.drain()
    body = (
        await api.client.get(
            f"/api/v1/operations/{response.json()['id']}", headers=api.auth("manager")
        )
    ).json()
    assert (body["done"], body["refused"]) == (1, 1)
    assert [r["item_id"] for r in body["refusals"]] == [tasks[1]["id"]]
    assert (await _task(api, tasks[0]))["status"] == "ready"


async def test_a_double_submit_past_the_threshold_answers_the_same_operation(api: Api) -> None:
    _ops(api, threshold=1)
    tasks = await open_tasks(api, 2)
    ids = [t["id"] for t in tasks]
    first = await _bulk(api, {"action": "claim", "task_ids": ids})
    again = await _bulk(api, {"action": "claim", "task_ids": list(reversed(ids))})
    assert first.status_code == again.status_code == 202
    assert again.json()["id"] == first.json()["id"]
    listing = await api.client.get("/api/v1/operations", headers=api.auth("manager"))
    assert [o["id"] for o in listing.json()] == [first.json()["id"]]
    await api.drain()
    done = await api.client.get(
        f"/api/v1/operations/{first.json()['id']}", headers=api.auth("manager")
    )
    assert (done.json()["done"], done.json()["refused"]) == (2, 0)


async def test_a_reassignment_without_a_target_is_400_even_past_the_threshold(api: Api) -> None:
    _ops(api, threshold=1)
    tasks = await open_tasks(api, 2)
    response = await _bulk(api, {"action": "reassign", "task_ids": [t["id"] for t in tasks]})
    assert response.status_code == 400
