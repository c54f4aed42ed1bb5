"""Dead letters (list, show, reprocess, abandon) and the audit trail, over HTTP."""

from __future__ import annotations

from datetime import timedelta

from core.clock import FixedClock
from tests.e2e.api.conftest import Api, start_purchase
from tests.fakes.purchase import retryable

UNKNOWN = "019cae6b-6600-7000-8000-0000000000ff"


async def _dead_letter(api: Api, clock: FixedClock) -> dict[str, object]:
    api.purchase.stock.fail_next.extend([retryable() for _ in range(5)])
    await start_purchase(api, 500)
    for _ in range(5):
        clock.advance(timedelta(seconds=31))
        await api.drain()
    page = (await api.client.get("/api/v1/dead-letters", headers=api.auth())).json()
    (letter,) = page["items"]
    return dict(letter)


async def test_a_step_over_its_retry_ceiling_is_listed_and_shown(
    api: Api, clock: FixedClock
) -> None:
    letter = await _dead_letter(api, clock)
    response = await api.client.get(f"/api/v1/dead-letters/{letter['id']}", headers=api.auth())
    assert response.status_code == 200
    assert (response.json()["node_id"], response.json()["status"]) == ("reserve_stock", "open")


async def test_reprocessing_resumes_the_instance(api: Api, clock: FixedClock) -> None:
    letter = await _dead_letter(api, clock)
    response = await api.client.post(
        f"/api/v1/dead-letters/{letter['id']}/reprocess", headers=api.auth()
    )
    assert response.status_code == 200
    await api.drain()
    instance = await api.client.get(
        f"/api/v1/instances/{letter['instance_id']}", headers=api.auth()
    )
    assert instance.json()["status"] == "completed"


async def test_reprocessing_twice_is_409(api: Api, clock: FixedClock) -> None:
    letter = await _dead_letter(api, clock)
    url = f"/api/v1/dead-letters/{letter['id']}/reprocess"
    await api.client.post(url, headers=api.auth())
    assert (await api.client.post(url, headers=api.auth())).status_code == 409


async def test_abandoning_fails_the_instance(api: Api, clock: FixedClock) -> None:
    letter = await _dead_letter(api, clock)
    response = await api.client.post(
        f"/api/v1/dead-letters/{letter['id']}/abandon",
        json={"reason": "partner gone"},
        headers=api.auth(),
    )
    assert response.status_code == 200
    assert response.json()["status"] in ("failed", "compensating")


async def test_dead_letters_need_the_operate_permission(api: Api) -> None:
    response = await api.client.get("/api/v1/dead-letters", headers=api.auth("reader"))
    assert response.status_code == 403


async def test_an_unknown_dead_letter_is_404(api: Api) -> None:
    response = await api.client.get(f"/api/v1/dead-letters/{UNKNOWN}", headers=api.auth())
    assert response.status_code == 404


async def test_the_audit_trail_holds_the_instance_and_its_tasks(api: Api) -> None:
    instance = await start_purchase(api, 20_000)
    (task,) = (
        await api.client.get(f"/api/v1/instances/{instance['id']}/tasks", headers=api.auth())
    ).json()
    await api.client.post(f"/api/v1/tasks/{task['id']}/claim", headers=api.auth("manager"))
    response = await api.client.get(
        f"/api/v1/instances/{instance['id']}/audit", headers=api.auth("reader")
    )
    assert response.status_code == 200
    actions = [e["action"] for e in response.json()]
    assert actions[0] == "workflow.instance.started"
    assert "workflow.task.claimed" in actions


async def test_the_audit_of_an_unknown_instance_is_404(api: Api) -> None:
    response = await api.client.get(f"/api/v1/instances/{UNKNOWN}/audit", headers=api.auth())
    assert response.status_code == 404


async def test_cancelling_the_instance_closes_its_dead_letter(api: Api, clock: FixedClock) -> None:
    letter = await _dead_letter(api, clock)
    cancel = await api.client.post(
        f"/api/v1/instances/{letter['instance_id']}/cancel",
        json={"reason": "duplicate request"},
        headers=api.auth(),
    )
    assert cancel.status_code == 200
    open_page = (await api.client.get("/api/v1/dead-letters", headers=api.auth())).json()
    assert open_page["items"] == []
    shown = await api.client.get(f"/api/v1/dead-letters/{letter['id']}", headers=api.auth())
    assert shown.json()["status"] == "cancelled"
    closed = await api.client.get(
        "/api/v1/dead-letters", params={"status": "cancelled"}, headers=api.auth()
    )
    assert [item["id"] for item in closed.json()["items"]] == [letter["id"]]
