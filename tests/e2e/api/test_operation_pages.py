"""Long operations over HTTP (both backends): a bulk action past the threshold becomes an
operation whose progress page and ``/api/v1/operations/{id}`` show its counts and refusals;
who may see it (the starter and operators; 404 for anyone else and for an unknown id);
cancelling from its page with a confirmation and a required reason, audited."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from contracts.kernel import Actor
from core.auth import issue_token
from core.tables import audit_log
from services.workflow.runtime.services.operations import OperationService
from services.workflow.settings import load_settings
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api
from tests.e2e.api.human_helpers import UNKNOWN, claim, open_tasks, user_id
from tests.integration.migration.helpers import purchase_v1, with_node

CSRF_COOKIE = "tramita_csrf"
OPERATIONS = "/cms/workflow/operations"


def _ops(api: Api, *, always: bool = True) -> OperationService:
    operations = api.service.operations
    assert operations is not None
    operations.always = always
    return operations


async def _as(api: Api, user: str) -> dict[str, str]:
    api.client.cookies.clear()
    session = await open_session(api.platform, user_id(api, user))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    await api.client.get("/cms/login")
    return {"x-csrftoken": api.client.cookies[CSRF_COOKIE]}


async def _bulk_claim(api: Api, headers: dict[str, str], ids: list[str]) -> Any:
    return await api.client.post(
        "/cms/workflow/tasks/bulk",
        data={"action": "claim", "task_ids": ids, "bulk_key": "k1"},
        headers=headers,
        follow_redirects=False,
    )


async def _clerk(api: Api, name: str) -> str:
    """Another clerk with ``workflow.tasks`` only: not the starter, not an operator."""
    await api.platform.directory.ensure_profile("clerk2", "Clerk", ["workflow.tasks"])
    user = await api.platform.directory.create_user(name, display_name=name, profile="clerk2")
    api.tokens[name] = issue_token(
        api.platform.settings.secret_key, user.id, now=api.platform.clock.now()
    )
    return str(user.id)


def test_the_setting_forces_every_selection_into_the_background() -> None:
    assert load_settings({}, {"TRAMITA_WF_BACKGROUND_ALWAYS": "1"}).background_always is True
    assert load_settings({}, {"TRAMITA_WF_BACKGROUND_ALWAYS": "0"}).background_always is False
    assert load_settings({}, {}).operation_threshold == 50


async def test_a_bulk_claim_runs_in_the_background_with_a_progress_page(api: Api) -> None:
    _ops(api)
    tasks = await open_tasks(api, 3)
    await claim(api, tasks[1]["id"], user="admin")
    headers = await _as(api, "manager")
    response = await _bulk_claim(api, headers, [t["id"] for t in tasks])
    assert response.status_code == 303
    location = response.headers["location"]
    assert location.startswith(f"{OPERATIONS}/")
    operation_id = location.rsplit("/", 1)[1]

    waiting = await api.client.get(location)
    assert waiting.status_code == 200
    assert '<meta http-equiv="refresh" content="3">' in waiting.text
    assert "Aguardando início" in waiting.text
    assert '<progress class="operation" max="3" value="0"' in waiting.text

    await api.drain()
    over = await api.client.get(location)
    assert over.status_code == 200
    assert 'http-equiv="refresh"' not in over.text
    assert "Concluída" in over.text
    assert '<progress class="operation" max="3" value="3"' in over.text
    assert "3 de 3 itens tratados (100%): 2 feitos, 1 recusados, 0 ainda por fazer." in over.text
    assert "Assumida por outro servidor." in over.text
    assert "Cancelar a operação" not in over.text

    listing = await api.client.get(OPERATIONS)
    assert listing.status_code == 200 and f"{OPERATIONS}/{operation_id}" in listing.text

    body = (
        await api.client.get(f"/api/v1/operations/{operation_id}", headers=api.auth("manager"))
    ).json()
    assert {k: body[k] for k in ("kind", "status", "total", "done", "refused", "remaining")} == {
        "kind": "bulk_claim",
        "status": "finished",
        "total": 3,
        "done": 2,
        "refused": 1,
        "remaining": 0,
    }
    assert [(r["item_id"], r["code"]) for r in body["refusals"]] == [
        (tasks[1]["id"], "claimed_by_other")
    ]


async def test_a_small_selection_still_answers_in_the_request(api: Api) -> None:
    _ops(api, always=False)
    tasks = await open_tasks(api, 1)
    headers = await _as(api, "manager")
    response = await _bulk_claim(api, headers, [tasks[0]["id"]])
    assert response.status_code == 200
    assert OPERATIONS + "/" not in response.headers.get("location", "")


async def test_only_the_starter_and_operators_see_an_operation(api: Api) -> None:
    operations = _ops(api)
    tasks = await open_tasks(api, 1)
    started = await operations.start(
        "bulk_claim", [tasks[0]["id"]], actor=Actor(id=user_id(api, "manager"))
    )
    await _clerk(api, "clerk-b")
    url = f"/api/v1/operations/{started.id}"
    assert (await api.client.get(url, headers=api.auth("manager"))).status_code == 200
    assert (await api.client.get(url, headers=api.auth("admin"))).status_code == 200
    hidden = await api.client.get(url, headers=api.auth("clerk-b"))
    unknown = await api.client.get(f"/api/v1/operations/{UNKNOWN}", headers=api.auth("manager"))
    assert hidden.status_code == unknown.status_code == 404
    assert hidden.json()["type"] == unknown.json()["type"]
    assert (await api.client.get(url, headers=api.auth("nobody"))).status_code == 403
    mine = await api.client.get("/api/v1/operations", headers=api.auth("clerk-b"))
    assert mine.status_code == 200 and mine.json() == []

    await _as(api, "clerk-b")
    page = await api.client.get(f"{OPERATIONS}/{started.id}")
    assert page.status_code == 404 and "Traceback" not in page.text
    await _as(api, "manager")
    missing = await api.client.get(f"{OPERATIONS}/{UNKNOWN}")
    assert missing.status_code == 404 and "Traceback" not in missing.text


async def test_cancelling_from_the_page_needs_a_reason_and_is_audited(api: Api) -> None:
    operations = _ops(api)
    tasks = await open_tasks(api, 2)
    headers = await _as(api, "manager")
    location = (await _bulk_claim(api, headers, [t["id"] for t in tasks])).headers["location"]
    operation_id = location.rsplit("/", 1)[1]
    running = await api.client.get(location)
    assert f'href="{location}/cancel"' in running.text
    confirm = await api.client.get(f"{location}/cancel")
    assert confirm.status_code == 200 and 'name="reason"' in confirm.text

    no_reason = await api.client.post(
        f"{location}/cancel", data={"reason": " "}, headers=headers, follow_redirects=False
    )
    assert no_reason.status_code == 400
    assert (await operations.get(operation_id)).status == "queued"

    done = await api.client.post(
        f"{location}/cancel",
        data={"reason": "wrong selection"},
        headers=headers,
        follow_redirects=False,
    )
    assert done.status_code == 303
    assert done.headers["location"] == f"{location}?msg=cancelled"
    await api.drain()
    after = await operations.get(operation_id)
    assert (after.status, after.done, after.cancel_reason) == ("cancelled", 0, "wrong selection")
    async with api.platform.database.connect() as conn:
        rows = (
            await conn.execute(
                sa.select(audit_log.c.actor_id, audit_log.c.reason).where(
                    audit_log.c.action == "workflow.operation.cancelled"
                )
            )
        ).all()
    assert [(r.actor_id, r.reason) for r in rows] == [(user_id(api, "manager"), "wrong selection")]

    again = await api.client.post(
        f"{location}/cancel", data={"reason": "twice"}, headers=headers, follow_redirects=False
    )
    assert again.status_code == 409


async def test_the_migration_wizard_runs_a_large_selection_as_an_operation(api: Api) -> None:
    operations = _ops(api)
    tasks = await open_tasks(api, 3)
    ids = [t["instance_id"] for t in tasks]
    doc = with_node(purchase_v1(), "manager_approval", id="manager_review")
    await api.service.engine.publisher.publish(doc, actor=Actor.system("test"))
    expected = [f"{i}:{(await api.service.engine.status(i)).row_version}" for i in ids]
    headers = await _as(api, "admin")
    response = await api.client.post(
        "/cms/workflow/operations/migrations/run",
        data={
            "definition": "purchase.approval",
            "from_version": "1",
            "to_version": "2",
            "instance": ids,
            "map.manager_approval": "manager_review",
            "expected_versions": expected,
            "reason": "renamed step",
        },
        headers=headers,
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
    operation_id = response.headers["location"].rsplit("/", 1)[1]
    await api.drain()
    over = await operations.get(operation_id)
    assert (over.kind, over.status, over.done, over.refused) == ("migration", "finished", 3, 0)
    assert over.reason == "renamed step"
    assert {(await api.service.engine.status(i)).definition_version for i in ids} == {2}
    page = await api.client.get(response.headers["location"])
    assert "Migração de processos para outra versão" in page.text
    assert "Nenhum item foi recusado." in page.text


async def test_a_double_click_on_a_bulk_action_opens_the_running_operation(api: Api) -> None:
    _ops(api)
    tasks = await open_tasks(api, 3)
    ids = [t["id"] for t in tasks]
    headers = await _as(api, "manager")
    first = await _bulk_claim(api, headers, ids)
    second = await _bulk_claim(api, headers, list(reversed(ids)))
    assert first.status_code == second.status_code == 303
    assert first.headers["location"] == second.headers["location"]
    listed = (await api.client.get("/api/v1/operations", headers=api.auth("manager"))).json()
    assert len(listed) == 1
    await api.drain()
    third = await _bulk_claim(api, headers, ids)  # the first is over: a new one starts
    assert third.headers["location"] != first.headers["location"]


async def test_the_api_starts_a_bulk_action_in_the_background_once(api: Api) -> None:
    tasks = await open_tasks(api, 3)
    ids = [t["id"] for t in tasks]
    await claim(api, ids[1], user="admin")
    body = {"action": "claim", "task_ids": ids}
    first = await api.client.post("/api/v1/operations/bulk", json=body, headers=api.auth("manager"))
    assert first.status_code == 202, first.text
    assert (first.json()["kind"], first.json()["status"]) == ("bulk_claim", "queued")
    again = await api.client.post(
        "/api/v1/operations/bulk",
        json={**body, "task_ids": list(reversed(ids))},
        headers=api.auth("manager"),
    )
    assert again.status_code == 202 and again.json()["id"] == first.json()["id"]
    await api.drain()
    over = await api.client.get(
        f"/api/v1/operations/{first.json()['id']}", headers=api.auth("manager")
    )
    assert {k: over.json()[k] for k in ("status", "done", "refused")} == {
        "status": "finished",
        "done": 2,
        "refused": 1,
    }
    assert [(r["item_id"], r["code"]) for r in over.json()["refusals"]] == [
        (ids[1], "claimed_by_other")
    ]


async def test_the_api_bulk_operation_refuses_a_wrong_target_and_a_reader(api: Api) -> None:
    ids = [t["id"] for t in await open_tasks(api, 1)]
    for body in (
        {"action": "claim", "task_ids": ids, "to_queue": "purchase.managers"},
        {"action": "forward", "task_ids": ids},
        {"action": "assign", "task_ids": ids, "to_queue": "purchase.managers"},
    ):
        refused = await api.client.post(
            "/api/v1/operations/bulk", json=body, headers=api.auth("manager")
        )
        assert refused.status_code == 400, (body, refused.text)
    reader = await api.client.post(
        "/api/v1/operations/bulk",
        json={"action": "claim", "task_ids": ids},
        headers=api.auth("reader"),
    )
    assert reader.status_code == 403
    listed = await api.client.get("/api/v1/operations", headers=api.auth("admin"))
    assert listed.json() == []
