"""Units in the pages, over HTTP with a session cookie (both backends): a unit supervisor sees
the inbox and the dashboard across their unit's queues only; a supervisor of another unit, or
a person without the permission, sees nothing of it (404 for a unit they do not supervise, the
same as for one that does not exist; 403 without the permission); an administrator sees every
queue; the administrator's units page creates a unit, places a queue and adds and removes a
supervisor, each with its reason in the audit trail."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from contracts.kernel import Actor
from core.auth import issue_token
from core.tables import audit_log
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api
from tests.e2e.api.human_helpers import open_tasks, user_id

CSRF_COOKIE = "tramita_csrf"
ADMIN = Actor.system("test")
SUPERVISION = ["workflow.read", "workflow.tasks", "workflow.supervise"]


async def _person(api: Api, name: str, permissions: list[str]) -> str:
    await api.platform.directory.ensure_profile(name, name.title(), permissions)
    user = await api.platform.directory.create_user(
        f"{name}-user", display_name=f"{name.title()} da Silva", profile=name
    )
    api.tokens[name] = issue_token(
        api.platform.settings.secret_key, user.id, now=api.platform.clock.now()
    )
    return user.id


async def _units(api: Api) -> tuple[str, str, str]:
    """Compras oversees ``purchase.managers``, Jurídico ``esic_like.juridico``; (the Compras
    supervisor, the Jurídico supervisor, a holder of the permission who supervises nothing)."""
    units = api.service.units
    await units.add("compras", "Secretaria de Compras", actor=ADMIN, reason="estrutura")
    await units.add("juridico", "Procuradoria", actor=ADMIN, reason="estrutura")
    await units.add_queue("compras", "purchase.managers", actor=ADMIN, reason="estrutura")
    await units.add_queue("juridico", "esic_like.juridico", actor=ADMIN, reason="estrutura")
    chefe = await _person(api, "chefe", SUPERVISION)
    procurador = await _person(api, "procurador", SUPERVISION)
    await _person(api, "avulso", SUPERVISION)
    await units.add_supervisor("compras", chefe, actor=ADMIN, reason="nomeação")
    await units.add_supervisor("juridico", procurador, actor=ADMIN, reason="nomeação")
    return chefe, procurador, "avulso"


async def _as(api: Api, user: str) -> dict[str, str]:
    api.client.cookies.clear()
    session = await open_session(api.platform, user_id(api, user))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    await api.client.get("/cms/login")
    return {"x-csrftoken": api.client.cookies[CSRF_COOKIE]}


async def _audit(api: Api, action: str) -> list[tuple[str, str | None, Any]]:
    async with api.platform.database.connect() as conn:
        rows = await conn.execute(
            sa.select(audit_log.c.actor_id, audit_log.c.reason, audit_log.c.after)
            .where(audit_log.c.action == action)
            .order_by(audit_log.c.seq)
        )
        return [(r.actor_id, r.reason, r.after) for r in rows]


async def test_a_unit_supervisor_sees_every_task_of_their_units_queues(api: Api) -> None:
    await _units(api)
    tasks = [t["id"] for t in await open_tasks(api, 2)]
    await _as(api, "chefe")
    own = await api.client.get("/cms/workflow/inbox")
    assert own.status_code == 200
    assert not any(t in own.text for t in tasks)  # not a member: not in their own inbox
    team = await api.client.get("/cms/workflow/inbox?scope=team")
    assert team.status_code == 200
    assert all(t in team.text for t in tasks)
    assert "Todas as filas das minhas unidades (supervisão)" in team.text
    assert '<option value="compras"' in team.text
    assert '<option value="juridico"' not in team.text
    picked = await api.client.get("/cms/workflow/inbox?unit=compras")
    assert all(t in picked.text for t in tasks)


async def test_a_supervisor_of_another_unit_sees_nothing_of_it(api: Api) -> None:
    await _units(api)
    tasks = [t["id"] for t in await open_tasks(api, 2)]
    await _as(api, "procurador")
    team = await api.client.get("/cms/workflow/inbox?scope=team")
    assert team.status_code == 200
    assert not any(t in team.text for t in tasks)
    for unit in ("compras", "nao-existe"):
        refused = await api.client.get(f"/cms/workflow/inbox?unit={unit}")
        assert refused.status_code == 404
        dashboard = await api.client.get(f"/cms/workflow/dashboard?unit={unit}")
        assert dashboard.status_code == 404
        assert "Secretaria de Compras" not in dashboard.text
        assert "Traceback" not in dashboard.text
    board = await api.client.get("/cms/workflow/dashboard")
    assert board.status_code == 200
    assert "purchase.managers" not in board.text
    assert 'id="versions-heading"' not in board.text


async def test_the_dashboard_of_a_unit_counts_its_queues_only(api: Api) -> None:
    await _units(api)
    await open_tasks(api, 3)
    await _as(api, "chefe")
    board = await api.client.get("/cms/workflow/dashboard")
    assert board.status_code == 200, board.text
    assert "key=purchase.managers" in board.text
    assert "esic_like.juridico" not in board.text
    assert '<td data-label="Tarefas abertas">3</td>' in board.text
    assert 'id="versions-heading"' not in board.text  # it counts every case: admins only
    csv = await api.client.get("/cms/workflow/dashboard/export.csv?unit=compras")
    assert csv.status_code == 200
    assert "purchase.managers" in csv.text and "esic_like" not in csv.text


async def test_without_a_unit_or_the_permission_the_dashboard_is_refused(api: Api) -> None:
    await _units(api)
    for user in ("avulso", "manager"):
        await _as(api, user)
        assert (await api.client.get("/cms/workflow/dashboard")).status_code == 403
    await _as(api, "avulso")
    assert (await api.client.get("/cms/workflow/inbox?unit=compras")).status_code == 404


async def test_an_administrator_still_sees_every_queue_and_may_pick_a_unit(api: Api) -> None:
    await _units(api)
    tasks = [t["id"] for t in await open_tasks(api, 1)]
    await _as(api, "admin")
    board = await api.client.get("/cms/workflow/dashboard")
    assert 'id="versions-heading"' in board.text
    assert '<option value="juridico"' in board.text and '<option value="compras"' in board.text
    juridico = await api.client.get("/cms/workflow/dashboard?unit=juridico")
    assert juridico.status_code == 200
    assert "key=purchase.managers" not in juridico.text
    team = await api.client.get("/cms/workflow/inbox?scope=team")
    assert tasks[0] in team.text


async def test_the_units_page_changes_units_with_a_reason_each_audited(api: Api) -> None:
    reader = user_id(api, "reader")
    headers = await _as(api, "admin")
    listing = await api.client.get("/cms/workflow/units")
    assert listing.status_code == 200 and "Nenhuma unidade ainda." in listing.text

    async def post(url: str, **data: str) -> Any:
        return await api.client.post(url, data=data, headers=headers, follow_redirects=False)

    assert (
        await post("/cms/workflow/units/add", key="saude", name="Saúde", reason="")
    ).status_code == 400
    bad = await post("/cms/workflow/units/add", key="Saúde!", name="Saúde", reason="lei 1")
    assert bad.status_code == 422 and "Traceback" not in bad.text
    made = await post(
        "/cms/workflow/units/add", key="saude", name="Secretaria de Saúde", reason="lei 1"
    )
    assert made.headers["location"].endswith("?msg=created")
    placed = await post(
        "/cms/workflow/units/saude/queues/add", queue="purchase.managers", reason="lei 2"
    )
    assert placed.headers["location"].endswith("?msg=queue")
    nope = await post("/cms/workflow/units/saude/queues/add", queue="nao.existe", reason="lei 2")
    assert nope.status_code == 422
    added = await post(
        "/cms/workflow/units/saude/supervisors/add", username="reader-user", reason="portaria 3"
    )
    assert added.headers["location"].endswith("?msg=added")
    page = (await api.client.get("/cms/workflow/units")).text
    assert "Secretaria de Saúde" in page and "reader user" in page and "purchase.managers" in page
    remove = f"/cms/workflow/units/saude/supervisors/{reader}/remove"
    assert (await api.client.get(remove)).status_code == 200
    removed = await post(remove, reason="exoneração")
    assert removed.headers["location"].endswith("?msg=removed")
    assert (await api.service.units.unit("saude")).supervisors == ()
    admin = user_id(api, "admin")
    assert await _audit(api, "workflow.unit.created") == [
        (admin, "lei 1", {"name": "Secretaria de Saúde"})
    ]
    assert await _audit(api, "workflow.unit.queue_assigned") == [
        (admin, "lei 2", {"queue": "purchase.managers", "previous_unit": None})
    ]
    assert await _audit(api, "workflow.unit.supervisor_added") == [
        (admin, "portaria 3", {"supervisor": reader})
    ]
    assert await _audit(api, "workflow.unit.supervisor_removed") == [
        (admin, "exoneração", {"supervisor": reader})
    ]
    unknown = await api.client.get("/cms/workflow/units/nada/supervisors/add")
    assert unknown.status_code == 404


async def test_the_units_page_needs_the_admin_permission(api: Api) -> None:
    await _units(api)
    await _as(api, "chefe")
    assert (await api.client.get("/cms/workflow/units")).status_code == 403


async def _inbox_ids(api: Api, user: str, query: str) -> tuple[int, list[str]]:
    response = await api.client.get(f"/api/v1/tasks?{query}", headers=api.auth(user))
    if response.status_code != 200:
        return response.status_code, []
    return 200, [t["id"] for t in response.json()["items"]]


async def test_the_api_inbox_honours_a_supervisors_units_like_the_page(api: Api) -> None:
    await _units(api)
    tasks = [t["id"] for t in await open_tasks(api, 2)]
    assert await _inbox_ids(api, "chefe", "") == (200, [])  # not a member of the queue
    status, team = await _inbox_ids(api, "chefe", "scope=team")
    assert status == 200 and sorted(team) == sorted(tasks)
    status, picked = await _inbox_ids(api, "chefe", "unit=compras")
    assert status == 200 and sorted(picked) == sorted(tasks)
    assert await _inbox_ids(api, "procurador", "scope=team") == (200, [])
    for unit in ("compras", "nao-existe"):
        assert (await _inbox_ids(api, "procurador", f"unit={unit}"))[0] == 404
    assert (await _inbox_ids(api, "avulso", "scope=team"))[0] == 403
    assert (await _inbox_ids(api, "manager", "scope=team"))[0] == 403
    assert (await _inbox_ids(api, "chefe", "scope=all"))[0] == 403  # every queue: admins only
    status, every = await _inbox_ids(api, "admin", "scope=team")
    assert status == 200 and set(tasks) <= set(every)
    assert await _inbox_ids(api, "admin", "unit=juridico") == (200, [])


async def test_the_api_workload_counts_the_supervisors_units_only(api: Api) -> None:
    await _units(api)
    await open_tasks(api, 3)
    response = await api.client.get("/api/v1/dashboard/workload", headers=api.auth("chefe"))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["queues"] == ["purchase.managers"]
    assert [(r["key"], r["open"]) for r in body["rows"]] == [("purchase.managers", 3)]
    by_definition = await api.client.get(
        "/api/v1/dashboard/workload?by=definition", headers=api.auth("chefe")
    )
    assert [r["open"] for r in by_definition.json()["rows"]] == [3]
    for user, unit, status in (
        ("procurador", "compras", 404),
        ("procurador", "nao-existe", 404),
        ("avulso", "", 403),
        ("manager", "", 403),
    ):
        refused = await api.client.get(
            f"/api/v1/dashboard/workload?unit={unit}", headers=api.auth(user)
        )
        assert refused.status_code == status, (user, unit, refused.text)
        assert "Traceback" not in refused.text
    admin = await api.client.get("/api/v1/dashboard/workload", headers=api.auth("admin"))
    assert admin.json()["queues"] is None
    assert ("purchase.managers", 3) in [(r["key"], r["open"]) for r in admin.json()["rows"]]
