"""Queue membership over HTTP: ``/api/v1/queues/{key}/members`` lists, adds and removes
members; changes need ``workflow.admin``, are audited with the caller, and decide who may work
the queue's tasks."""

from __future__ import annotations

import sqlalchemy as sa

from core.tables import audit_log, users
from tests.e2e.api.conftest import Api, start_purchase

QUEUE = "purchase.managers"
URL = f"/api/v1/queues/{QUEUE}/members"


async def _user_id(api: Api, name: str) -> str:
    async with api.platform.database.connect() as conn:
        found = await conn.execute(sa.select(users.c.id).where(users.c.username == f"{name}-user"))
        return str(found.scalar_one())


async def _audit(api: Api, action: str) -> list[tuple[str, str, object]]:
    async with api.platform.database.connect() as conn:
        rows = await conn.execute(
            sa.select(audit_log.c.object_id, audit_log.c.actor_id, audit_log.c.after)
            .where(audit_log.c.action == action)
            .order_by(audit_log.c.seq)
        )
        return [(r.object_id, r.actor_id, r.after) for r in rows]


async def test_members_are_listed_with_read_permission(api: Api) -> None:
    response = await api.client.get(URL, headers=api.auth("reader"))
    assert response.status_code == 200
    expected = sorted([await _user_id(api, "admin"), await _user_id(api, "manager")])
    assert response.json() == {"queue": QUEUE, "members": expected, "changed": False}


async def test_an_admin_adds_a_member_and_the_change_is_audited(api: Api) -> None:
    requester = await _user_id(api, "requester")
    response = await api.client.post(URL, json={"user_id": requester}, headers=api.auth())
    assert response.status_code == 200
    assert response.json()["changed"] is True and requester in response.json()["members"]
    again = await api.client.post(URL, json={"user_id": requester}, headers=api.auth())
    assert again.json()["changed"] is False
    admin = await _user_id(api, "admin")
    assert (await _audit(api, "workflow.queue.members_added"))[-1] == (
        QUEUE,
        admin,
        {"members": [requester]},
    )


async def test_a_removed_member_may_no_longer_claim_and_the_removal_is_audited(
    api: Api,
) -> None:
    instance = await start_purchase(api, 20_000)
    tasks = await api.client.get(f"/api/v1/instances/{instance['id']}/tasks", headers=api.auth())
    (task,) = tasks.json()
    manager = await _user_id(api, "manager")
    response = await api.client.delete(f"{URL}/{manager}", headers=api.auth())
    assert response.status_code == 200
    assert (response.json()["changed"], manager in response.json()["members"]) == (True, False)
    again = await api.client.delete(f"{URL}/{manager}", headers=api.auth())
    assert again.json()["changed"] is False
    assert (await _audit(api, "workflow.queue.member_removed"))[-1][2] == {"member": manager}
    claim = await api.client.post(f"/api/v1/tasks/{task['id']}/claim", headers=api.auth("manager"))
    assert (claim.status_code, claim.json()["code"]) == (403, "not_a_member")


async def test_changing_members_needs_the_admin_permission(api: Api) -> None:
    requester = await _user_id(api, "requester")
    added = await api.client.post(URL, json={"user_id": requester}, headers=api.auth("manager"))
    removed = await api.client.delete(f"{URL}/{requester}", headers=api.auth("manager"))
    assert (added.status_code, removed.status_code) == (403, 403)
    listed = await api.client.get(URL, headers=api.auth("nobody"))
    assert listed.status_code == 403


async def test_an_unknown_queue_or_user_is_404(api: Api) -> None:
    requester = await _user_id(api, "requester")
    queue = await api.client.post(
        "/api/v1/queues/no.such/members", json={"user_id": requester}, headers=api.auth()
    )
    stranger = "019cae6b-6600-7000-8000-0000000000ff"
    user = await api.client.post(URL, json={"user_id": stranger}, headers=api.auth())
    listed = await api.client.get("/api/v1/queues/no.such/members", headers=api.auth())
    assert (queue.status_code, user.status_code, listed.status_code) == (404, 404, 404)
    assert queue.headers["content-type"].startswith("application/problem+json")


async def test_unknown_fields_and_ids_that_are_not_user_ids_are_refused(api: Api) -> None:
    requester = await _user_id(api, "requester")
    extra = await api.client.post(
        URL, json={"user_id": requester, "role": "owner"}, headers=api.auth()
    )
    not_an_id = await api.client.post(URL, json={"user_id": "nobody"}, headers=api.auth())
    removed = await api.client.delete(f"{URL}/nobody", headers=api.auth())
    assert (extra.status_code, not_an_id.status_code) == (400, 400)
    assert removed.status_code == 404  # no route takes a user id that is not a UUID
