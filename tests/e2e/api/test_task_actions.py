"""Release, forward and bulk actions on tasks over HTTP."""

from __future__ import annotations

from typing import Any

from contracts.kernel import Actor
from tests.e2e.api.conftest import Api
from tests.e2e.api.human_helpers import UNKNOWN, claim, open_tasks, user_id

SYSTEM = Actor.system("test")


async def _post(
    api: Api, path: str, user: str = "manager", body: Any = None, **headers: str
) -> Any:
    return await api.client.post(path, json=body, headers=api.auth(user, **headers))


async def test_releasing_a_claimed_task_puts_it_back_in_the_queue(api: Api) -> None:
    (task,) = await open_tasks(api, 1)
    await claim(api, task["id"])
    response = await _post(api, f"/api/v1/tasks/{task['id']}/release")
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["assignee"]) == ("ready", None)


async def test_releasing_a_task_nobody_holds_is_409(api: Api) -> None:
    (task,) = await open_tasks(api, 1)
    response = await _post(api, f"/api/v1/tasks/{task['id']}/release")
    assert response.status_code == 409
    assert response.json()["code"] == "not_claimed"


async def test_releasing_an_unknown_task_is_404(api: Api) -> None:
    response = await _post(api, f"/api/v1/tasks/{UNKNOWN}/release")
    assert response.status_code == 404


async def test_a_repeated_release_replays_the_first_answer(api: Api) -> None:
    (task,) = await open_tasks(api, 1)
    await claim(api, task["id"])
    path = f"/api/v1/tasks/{task['id']}/release"
    first = await _post(api, path, **{"Idempotency-Key": "rel-1"})
    again = await _post(api, path, **{"Idempotency-Key": "rel-1"})
    assert (first.status_code, again.status_code) == (200, 200)
    assert again.json() == first.json()
    assert again.headers["idempotent-replayed"] == "true"


async def test_forwarding_to_a_queue_makes_the_task_ready_there(api: Api) -> None:
    (task,) = await open_tasks(api, 1)
    response = await _post(
        api,
        f"/api/v1/tasks/{task['id']}/forward",
        body={"to_queue": "purchase.approval.operators"},
    )
    assert response.status_code == 200
    assert (response.json()["queue"], response.json()["status"]) == (
        "purchase.approval.operators",
        "ready",
    )


async def test_forwarding_into_a_queue_outside_the_policy_is_403(api: Api) -> None:
    (task,) = await open_tasks(api, 1)
    catalog = api.service.catalog
    await catalog.remove_member("esic_like.juridico", user_id(api, "manager"), actor=SYSTEM)
    response = await _post(
        api, f"/api/v1/tasks/{task['id']}/forward", body={"to_queue": "esic_like.juridico"}
    )
    assert response.status_code == 403
    problem = response.json()
    assert (problem["code"], problem["target"]) == ("forward_not_allowed", "esic_like.juridico")
    shown = await api.client.get(
        f"/api/v1/instances/{task['instance_id']}/tasks", headers=api.auth("manager")
    )
    assert [t["queue"] for t in shown.json()] == ["purchase.managers"]


async def test_an_admin_outside_the_queue_can_always_reassign(api: Api) -> None:
    (task,) = await open_tasks(api, 1)
    await api.service.catalog.remove_member(
        "purchase.managers", user_id(api, "admin"), actor=SYSTEM
    )
    response = await _post(
        api,
        f"/api/v1/tasks/{task['id']}/forward",
        user="admin",
        body={"to_queue": "esic_like.juridico"},
    )
    assert response.status_code == 200, response.text
    assert response.json()["queue"] == "esic_like.juridico"


async def test_forwarding_to_a_member_makes_the_task_theirs(api: Api) -> None:
    (task,) = await open_tasks(api, 1)
    admin = user_id(api, "admin")
    response = await _post(api, f"/api/v1/tasks/{task['id']}/forward", body={"to_user": admin})
    assert response.status_code == 200
    assert (response.json()["assignee"], response.json()["status"]) == (admin, "claimed")


async def test_forwarding_to_someone_outside_the_queue_is_403(api: Api) -> None:
    (task,) = await open_tasks(api, 1)
    reader = user_id(api, "reader")
    response = await _post(api, f"/api/v1/tasks/{task['id']}/forward", body={"to_user": reader})
    assert response.status_code == 403


async def test_forwarding_to_an_unknown_queue_is_404(api: Api) -> None:
    (task,) = await open_tasks(api, 1)
    response = await _post(
        api, f"/api/v1/tasks/{task['id']}/forward", body={"to_queue": "no.such.queue"}
    )
    assert response.status_code == 404


async def test_forwarding_to_both_a_user_and_a_queue_is_400(api: Api) -> None:
    (task,) = await open_tasks(api, 1)
    response = await _post(
        api,
        f"/api/v1/tasks/{task['id']}/forward",
        body={"to_user": user_id(api, "admin"), "to_queue": "purchase.managers"},
    )
    assert response.status_code == 400


async def test_bulk_claim_reports_each_task_and_refuses_only_the_unknown_one(api: Api) -> None:
    first, second = await open_tasks(api, 2)
    response = await _post(
        api,
        "/api/v1/tasks/bulk",
        body={"action": "claim", "task_ids": [first["id"], UNKNOWN, second["id"]]},
    )
    assert response.status_code == 200
    items = response.json()["items"]
    assert [(i["task_id"], i["ok"], i["status"]) for i in items] == [
        (first["id"], True, None),
        (UNKNOWN, False, 404),
        (second["id"], True, None),
    ]


async def test_bulk_reassign_forwards_every_task_to_the_queue(api: Api) -> None:
    tasks = await open_tasks(api, 2)
    response = await _post(
        api,
        "/api/v1/tasks/bulk",
        body={
            "action": "reassign",
            "task_ids": [t["id"] for t in tasks],
            "to_queue": "purchase.approval.operators",
        },
    )
    assert [i["task"]["queue"] for i in response.json()["items"]] == [
        "purchase.approval.operators"
    ] * 2


async def test_bulk_abandon_of_someone_elses_task_needs_a_supervisor(api: Api) -> None:
    (task,) = await open_tasks(api, 1)
    await claim(api, task["id"], "admin")
    refused = await _post(
        api, "/api/v1/tasks/bulk", body={"action": "abandon", "task_ids": [task["id"]]}
    )
    done = await _post(
        api, "/api/v1/tasks/bulk", "admin", body={"action": "abandon", "task_ids": [task["id"]]}
    )
    assert refused.json()["items"][0]["status"] == 409
    assert done.json()["items"][0]["task"]["status"] == "ready"


async def test_bulk_reassign_without_a_target_is_400(api: Api) -> None:
    (task,) = await open_tasks(api, 1)
    response = await _post(
        api, "/api/v1/tasks/bulk", body={"action": "reassign", "task_ids": [task["id"]]}
    )
    assert response.status_code == 400


async def test_bulk_with_an_unknown_action_is_400(api: Api) -> None:
    response = await _post(
        api, "/api/v1/tasks/bulk", body={"action": "delete", "task_ids": [UNKNOWN]}
    )
    assert response.status_code == 400


async def test_a_repeated_bulk_request_does_the_work_once(api: Api) -> None:
    (task,) = await open_tasks(api, 1)
    body = {"action": "claim", "task_ids": [task["id"]]}
    first = await _post(api, "/api/v1/tasks/bulk", body=body, **{"Idempotency-Key": "bulk-1"})
    again = await _post(api, "/api/v1/tasks/bulk", body=body, **{"Idempotency-Key": "bulk-1"})
    assert again.json() == first.json()
    assert again.headers["idempotent-replayed"] == "true"


async def test_the_same_key_with_another_bulk_body_is_422(api: Api) -> None:
    first, second = await open_tasks(api, 2)
    key = {"Idempotency-Key": "bulk-2"}
    await _post(
        api, "/api/v1/tasks/bulk", body={"action": "claim", "task_ids": [first["id"]]}, **key
    )
    response = await _post(
        api, "/api/v1/tasks/bulk", body={"action": "claim", "task_ids": [second["id"]]}, **key
    )
    assert response.status_code == 422


async def test_task_actions_without_the_tasks_permission_are_403(api: Api) -> None:
    (task,) = await open_tasks(api, 1)
    response = await _post(api, f"/api/v1/tasks/{task['id']}/release", "reader")
    assert response.status_code == 403
    assert response.json()["permission"] == "workflow.tasks"
