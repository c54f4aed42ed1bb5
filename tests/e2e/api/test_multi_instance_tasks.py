"""A task of a multi-instance step over HTTP (issue #24 item 3): the API's task carries the
item it works on with its place ("Item 2 de 3" on the task page), and one person does one
task of the step — a second is refused with 409 naming the rule, in Portuguese, API and page
alike — while another person does it."""

from __future__ import annotations

from typing import Any

from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api
from tests.e2e.api.human_helpers import user_id

QUEUE = "purchase.managers"  # the admin and the manager are its members
FLOW: dict[str, Any] = {
    "format": 1,
    "key": "review.http",
    "name": "Pareceres",
    "protocol_prefix": "PAR",
    "nodes": [
        {"id": "begin", "type": "start", "produces": ["areas"], "next": "review"},
        {
            "id": "review",
            "name": "Parecer",
            "type": "user_task",
            "queue": QUEUE,
            "produces": ["vote"],
            "multi": {"over": "areas", "item": "area", "mode": "parallel"},
            "next": "done",
        },
        {"id": "done", "type": "end"},
    ],
}


async def test_a_review_shows_its_item_and_one_person_does_one_review(api: Api) -> None:
    published = await api.client.post("/api/v1/workflows", json=FLOW, headers=api.auth())
    assert published.status_code in (200, 201), published.text
    started = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "review.http", "context": {"areas": ["obras", "saúde", "rh"]}},
        headers=api.auth(),
    )
    assert started.status_code == 201, started.text
    instance = started.json()["id"]
    listed = await api.client.get(f"/api/v1/instances/{instance}/tasks", headers=api.auth())
    tasks = sorted(listed.json(), key=lambda t: t["multi"]["index"])
    assert [t["multi"] for t in tasks] == [
        {"item": "area", "value": area, "index": i, "total": 3}
        for i, area in enumerate(["obras", "saúde", "rh"])
    ]

    session = await open_session(api.platform, user_id(api, "admin"))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    page = await api.client.get(f"/cms/workflow/instances/{instance}/tasks/{tasks[1]['id']}")
    assert page.status_code == 200 and "Item 2 de 3: saúde" in page.text

    def complete(task: dict[str, Any], who: str) -> Any:
        return api.client.post(
            f"/api/v1/tasks/{task['id']}/complete",
            json={"data": {"vote": "ok"}},
            headers=api.auth(who),
        )

    assert (await complete(tasks[0], "admin")).status_code == 200
    refused = await complete(tasks[1], "admin")
    assert refused.status_code == 409, refused.text
    problem = refused.json()
    assert (problem["code"], problem["rule"], problem["node_id"]) == (
        "distinct_people",
        "distinct_people",
        "review",
    )
    assert "Pessoas distintas" in problem["errors"][0]["message"]
    again = await api.client.post(
        f"/cms/workflow/instances/{instance}/tasks/{tasks[2]['id']}",
        data={},
        headers={"x-csrftoken": api.client.cookies["tramita_csrf"]},
    )
    assert again.status_code == 409 and "Pessoas distintas" in again.text
    assert (await complete(tasks[1], "manager")).status_code == 200
    shown = await api.client.get(f"/api/v1/instances/{instance}/tasks", headers=api.auth())
    assert {t["id"]: t["multi"]["value"] for t in shown.json()}[tasks[0]["id"]] == "obras"
