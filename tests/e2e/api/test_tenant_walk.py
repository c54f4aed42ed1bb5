"""Tenant isolation (issue #25 item 1): two tenants on one deployment. A person who works for
one never sees the other's cases — on any route that shows a case (API, pages, commands), in
search, in the inbox, by claiming its task — however wide their own rights (a classifier, a
member of the same queue); the refusal is exactly an unknown id's. A person who works for both
picks one per request (``X-Tramita-Tenant``); naming a tenant one does not work for is a 403.

The scoping itself is one SQL condition (``persistence.access_repo.seen_by``), the same every
list and every case check filters with; this walk is its proof.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from click.testing import CliRunner

from contracts.kernel import Actor
from core.auth import issue_token
from core.tenants import Tenants
from services.workflow.cli.instance_list import list_instances_cmd
from services.workflow.cli.workflow import show_cmd
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api
from tests.e2e.api.esic_like import PERSONAL
from tests.e2e.api.human_helpers import user_id

TENANTS = ("norte", "sul")
ROLES = {
    # role: (profile permissions, member of the case's task queue)
    "starter": (["workflow.read", "workflow.start"], False),
    "clerk": (["workflow.read", "workflow.tasks"], True),
    "classifier": (["workflow.read", "workflow.classify"], False),
}
API_ROUTES = ("", "/history", "/tasks", "/audit", "/documents", "/deadlines", "/access")
PAGE_ROUTES = ("", "/deadlines", "/tasks/{task}")


async def _people(api: Api) -> None:
    """One person per role in each tenant, and ``both`` who works for the two."""
    tenants = Tenants(api.platform.database, api.platform.clock)
    directory = api.platform.directory
    catalog = api.service.catalog
    for key in TENANTS:
        await tenants.add(key, f"Prefeitura {key.title()}")
    for role, (permissions, member) in ROLES.items():
        await directory.ensure_profile(f"t-{role}", role.title(), permissions)
        for key in TENANTS:
            made = await directory.create_user(
                f"{role}-{key}", display_name=f"{role} {key}", profile=f"t-{role}"
            )
            await tenants.join(made.id, key)
            if member:
                await catalog.add_member("esic_like.juridico", made.id, actor=Actor.system("t"))
            api.tokens[f"{role}-{key}"] = issue_token(
                api.platform.settings.secret_key, made.id, now=api.platform.clock.now()
            )
    both = await directory.create_user("both", display_name="both", profile="t-starter")
    for key in TENANTS:
        await tenants.join(both.id, key)
    api.tokens["both"] = issue_token(
        api.platform.settings.secret_key, both.id, now=api.platform.clock.now()
    )


async def _cases(api: Api) -> dict[str, dict[str, Any]]:
    """Each tenant's starter starts one request; it waits on a task of the shared queue."""
    cases = {}
    for key in TENANTS:
        started = await api.client.post(
            "/api/v1/instances",
            json={"definition_key": "esic_like.request", "context": PERSONAL},
            headers=api.auth(f"starter-{key}"),
        )
        assert started.status_code == 201, started.text
        cases[key] = started.json()
    await api.drain()
    for key, case in cases.items():
        tasks = await api.client.get(
            f"/api/v1/instances/{case['id']}/tasks", headers=api.auth(f"clerk-{key}")
        )
        assert tasks.status_code == 200, tasks.text
        (task,) = tasks.json()
        case["task"] = task["id"]
    return cases


def _same(text: str, *ids: str) -> str:
    for value in ids:
        text = text.replace(value, "ID")
    return text


async def _api_walk(api: Api, cases: dict[str, dict[str, Any]]) -> int:
    checked = 0
    unknown, unknown_task = str(uuid.uuid4()), str(uuid.uuid4())
    get = api.client.get
    for role in ROLES:
        for mine in TENANTS:
            headers = api.auth(f"{role}-{mine}")
            paths = [(key, route) for key in (*TENANTS, None) for route in API_ROUTES]
            answers = await asyncio.gather(
                *(
                    get(
                        f"/api/v1/instances/{cases[key]['id'] if key else unknown}{route}",
                        headers=headers,
                    )
                    for key, route in paths
                ),
                *(
                    get(
                        "/api/v1/instances",
                        params={"protocol": cases[key]["protocol"]},
                        headers=headers,
                    )
                    for key in TENANTS
                ),
                get("/api/v1/tasks?limit=100", headers=headers),
            )
            by_path = dict(zip(paths, answers, strict=False))
            found = dict(zip(TENANTS, answers[len(paths) :], strict=False))
            inbox = answers[-1]
            listed = {i["id"] for i in inbox.json()["items"]} if inbox.is_success else set()
            for key, case in cases.items():
                sees = key == mine
                for route in API_ROUTES:
                    answer, where = by_path[(key, route)], (role, mine, key, route)
                    if sees:
                        assert answer.status_code == 200, (where, answer.text)
                    else:
                        refusal = by_path[(None, route)]
                        assert (answer.status_code, _same(answer.text, case["id"])) == (
                            refusal.status_code,
                            _same(refusal.text, unknown),
                        ), where
                        assert case["protocol"] not in answer.text, where
                    checked += 1
                items = [i["id"] for i in found[key].json()["items"]]
                assert items == ([case["id"]] if sees else []), (role, mine, key, "search")
                member = ROLES[role][1]
                assert (case["task"] in listed) == (sees and member), (role, mine, key, "inbox")
                checked += 2
            if ROLES[role][1]:  # the other tenant's task: claimed like an unknown one
                other = cases[TENANTS[1 - TENANTS.index(mine)]]["task"]
                claim, nothing = await asyncio.gather(
                    api.client.post(f"/api/v1/tasks/{other}/claim", headers=headers),
                    api.client.post(f"/api/v1/tasks/{unknown_task}/claim", headers=headers),
                )
                assert (claim.status_code, _same(claim.text, other)) == (
                    nothing.status_code,
                    _same(nothing.text, unknown_task),
                ), (role, mine, "claim")
                checked += 1
    return checked


async def _page_walk(api: Api, cases: dict[str, dict[str, Any]]) -> int:
    checked = 0
    for mine in TENANTS:
        session = await open_session(api.platform, user_id(api, f"clerk-{mine}"))
        api.client.cookies.set(SESSION_COOKIE, str(session.value))
        for key, case in cases.items():
            for route in PAGE_ROUTES:
                path = ("/cms/workflow/instances/{id}" + route).format(
                    id=case["id"], task=case["task"]
                )
                shown = await api.client.get(path)
                if key == mine:
                    assert shown.status_code == 200, (mine, key, route)
                else:
                    assert shown.status_code == 404, (mine, key, route)
                    assert case["protocol"] not in shown.text
                checked += 1
            search = await api.client.get(
                "/cms/workflow/search", params={"protocol": case["protocol"]}
            )
            assert (f"/cms/workflow/instances/{case['id']}" in search.text) == (key == mine)
            inbox = await api.client.get("/cms/workflow/inbox")
            assert inbox.status_code == 200
            assert (case["protocol"] in inbox.text) == (key == mine), (mine, key, "inbox page")
            checked += 2
    api.client.cookies.delete(SESSION_COOKIE)
    return checked


def _cli(command: Any, *args: str) -> Any:
    return CliRunner().invoke(command, list(args))


async def _cli_walk(api: Api, cases: dict[str, dict[str, Any]]) -> int:
    checked = 0
    for mine in TENANTS:
        me = user_id(api, f"classifier-{mine}")
        unknown = await asyncio.to_thread(_cli, show_cmd, str(uuid.uuid4()), "--as", me)
        listed = await asyncio.to_thread(_cli, list_instances_cmd, "--as", me, "--json")
        assert listed.exit_code == 0, listed.output
        for key, case in cases.items():
            shown = await asyncio.to_thread(_cli, show_cmd, case["protocol"], "--as", me)
            if key == mine:
                assert shown.exit_code == 0, (mine, shown.output, shown.exception)
            else:
                assert (shown.exit_code, shown.output) == (unknown.exit_code, unknown.output)
            assert (case["protocol"] in listed.output) == (key == mine), (mine, key, "list")
            checked += 2
    return checked


async def test_a_tenant_never_sees_another_tenants_cases(
    api: Api, database_url: str, monkeypatch: Any
) -> None:
    monkeypatch.setenv("TRAMITA_DATABASE_URL", database_url)
    await _people(api)
    cases = await _cases(api)
    checked = await _api_walk(api, cases)
    checked += await _page_walk(api, cases)
    checked += await _cli_walk(api, cases)
    per_person = len(TENANTS) * (len(API_ROUTES) + 2)
    claims = sum(1 for _, member in ROLES.values() if member) * len(TENANTS)
    pages = len(TENANTS) * len(TENANTS) * (len(PAGE_ROUTES) + 2)
    assert checked == len(ROLES) * len(TENANTS) * per_person + claims + pages + 2 * 2 * 2


async def test_a_person_of_two_tenants_picks_one_per_request(api: Api) -> None:
    await _people(api)
    cases = await _cases(api)
    for key in TENANTS:
        path = f"/api/v1/instances/{cases[key]['id']}"
        chosen = await api.client.get(path, headers=api.auth("both", **{"X-Tramita-Tenant": key}))
        assert chosen.status_code == 200, chosen.text
        other = TENANTS[1 - TENANTS.index(key)]
        elsewhere = await api.client.get(
            path, headers=api.auth("both", **{"X-Tramita-Tenant": other})
        )
        assert elsewhere.status_code == 404
    # Without the header: the first tenant in key order.
    first = await api.client.get(
        f"/api/v1/instances/{cases['norte']['id']}", headers=api.auth("both")
    )
    assert first.status_code == 200
    # A tenant the person does not work for, or one that does not exist: 403, nothing shown.
    for foreign in ("sul", "nenhum"):
        refused = await api.client.get(
            "/api/v1/instances", headers=api.auth("starter-norte", **{"X-Tramita-Tenant": foreign})
        )
        assert refused.status_code == 403, refused.text
    # What a person starts belongs to the tenant they act for.
    started = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "esic_like.request", "context": PERSONAL},
        headers=api.auth("both", **{"X-Tramita-Tenant": "sul"}),
    )
    assert started.status_code == 201, started.text
    seen_in_sul = await api.client.get(
        f"/api/v1/instances/{started.json()['id']}", headers=api.auth("classifier-sul")
    )
    assert seen_in_sul.status_code == 200
    seen_in_norte = await api.client.get(
        f"/api/v1/instances/{started.json()['id']}", headers=api.auth("classifier-norte")
    )
    assert seen_in_norte.status_code == 404


async def test_a_single_tenant_install_notices_nothing(api: Api) -> None:
    """No tenant registered: everyone works for the deployment's own tenant, as before."""
    started = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "esic_like.request", "context": PERSONAL},
        headers=api.auth("requester"),
    )
    assert started.status_code == 201
    shown = await api.client.get(f"/api/v1/instances/{started.json()['id']}", headers=api.auth())
    assert shown.status_code == 200
    # Registering tenants later leaves a person without membership in the deployment's own.
    tenants = Tenants(api.platform.database, api.platform.clock)
    await tenants.add("norte", "Prefeitura Norte")
    again = await api.client.get(f"/api/v1/instances/{started.json()['id']}", headers=api.auth())
    assert again.status_code == 200


async def test_the_tenant_commands(api: Api, database_url: str, monkeypatch: Any) -> None:
    from core.cli_tenants import tenant_group

    monkeypatch.setenv("TRAMITA_DATABASE_URL", database_url)
    added = await asyncio.to_thread(_cli, tenant_group, "add", "norte", "Prefeitura Norte")
    assert added.exit_code == 0, added.output
    again = await asyncio.to_thread(_cli, tenant_group, "add", "norte", "Outra")
    bad = await asyncio.to_thread(_cli, tenant_group, "add", "Norte!", "X")
    listed = await asyncio.to_thread(_cli, tenant_group, "list", "--json")
    assert listed.exit_code == 0 and '"key":"norte"' in listed.output, listed.output
    me = user_id(api, "reader")
    joined = await asyncio.to_thread(_cli, tenant_group, "join", "norte", me)
    unknown = await asyncio.to_thread(_cli, tenant_group, "join", "sul", me)
    left = await asyncio.to_thread(_cli, tenant_group, "leave", "norte", me)
    not_there = await asyncio.to_thread(_cli, tenant_group, "leave", "norte", me)
    assert joined.exit_code == 0 and left.exit_code == 0, (joined.output, left.output)
    for refused in (again, bad, unknown, not_there):
        assert refused.exit_code == 1, refused.output
        assert "Traceback" not in refused.output and refused.output.strip().count("\n") == 0


async def test_on_the_pages_a_person_of_two_tenants_switches_between_them(api: Api) -> None:
    await _people(api)
    cases = await _cases(api)
    session = await open_session(api.platform, user_id(api, "both"))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    first = await api.client.get(f"/cms/workflow/instances/{cases['norte']['id']}")
    assert first.status_code == 200
    assert '<option value="sul">' in first.text and 'value="norte" selected' in first.text
    csrf = {"x-csrftoken": api.client.cookies["tramita_csrf"]}
    switched = await api.client.post(
        "/cms/tenant",
        data={"tenant": "sul", "next": "/cms/workflow/search"},
        headers=csrf,
        follow_redirects=False,
    )
    assert switched.status_code == 303 and switched.headers["location"] == "/cms/workflow/search"
    sul = await api.client.get(f"/cms/workflow/instances/{cases['sul']['id']}")
    norte = await api.client.get(f"/cms/workflow/instances/{cases['norte']['id']}")
    assert (sul.status_code, norte.status_code) == (200, 404)
    refused = await api.client.post("/cms/tenant", data={"tenant": "nenhum"}, headers=csrf)
    assert refused.status_code == 403
    # One who works for one tenant has no chooser; a cookie naming another is ignored.
    api.client.cookies.clear()
    session = await open_session(api.platform, user_id(api, "clerk-norte"))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    api.client.cookies.set("tramita_tenant", "sul")
    own = await api.client.get(f"/cms/workflow/instances/{cases['norte']['id']}")
    assert own.status_code == 200 and 'action="/cms/tenant"' not in own.text


async def test_purging_a_tenant_removes_its_cases_and_nothing_else(
    api: Api, database_url: str, monkeypatch: Any
) -> None:
    import sqlalchemy as sa

    from core.audit_verify import verify_chain
    from services.workflow.cli.privacy import privacy_group
    from services.workflow.persistence import schema

    monkeypatch.setenv("TRAMITA_DATABASE_URL", database_url)
    await _people(api)
    cases = await _cases(api)
    norte = cases["norte"]["id"]
    restricted = await api.client.post(
        f"/api/v1/instances/{norte}/access",
        json={"level": "restricted", "ground": "lai.art31", "reason": "Dados pessoais"},
        headers=api.auth("classifier-norte"),
    )
    assert restricted.status_code == 200, restricted.text
    granted = await api.client.post(
        f"/api/v1/instances/{norte}/access/grants",
        json={"user_id": user_id(api, "starter-norte"), "reason": "Instrução"},
        headers=api.auth("classifier-norte"),
    )
    assert granted.status_code == 201, granted.text

    refused = await asyncio.to_thread(_cli, privacy_group, "purge-tenant", "norte")
    own = await asyncio.to_thread(_cli, privacy_group, "purge-tenant", "default", "--yes")
    dry = await asyncio.to_thread(_cli, privacy_group, "purge-tenant", "norte", "--dry-run")
    assert refused.exit_code == 2 and own.exit_code == 1, (refused.output, own.output)
    assert "1" in dry.output and dry.exit_code == 0, dry.output
    still = await api.client.get(f"/api/v1/instances/{norte}", headers=api.auth("clerk-norte"))
    assert still.status_code == 200  # neither a refusal nor a dry run deleted anything

    done = await asyncio.to_thread(_cli, privacy_group, "purge-tenant", "norte", "--yes", "--json")
    assert done.exit_code == 0, (done.output, done.exception)
    report = __import__("json").loads(done.output)
    assert report["cases"] == 1
    for table in (
        "workflow_instances",
        "workflow_tasks",
        "workflow_history",
        "workflow_access",
        "workflow_access_grants",
    ):
        assert report["rows"][table] >= 1, (table, report)

    # Nothing of the purged case is left in any table that holds a case's rows.
    async with api.platform.database.connect() as conn:
        for table in schema.metadata.tables.values():
            for column in (
                ("instance_id", "id") if table.name == "workflow_instances" else ("instance_id",)
            ):
                if column in table.c:
                    query = sa.select(sa.func.count()).where(table.c[column] == norte)
                    assert (await conn.execute(query)).scalar_one() == 0, table.name
        report_chain = await verify_chain(conn)
    assert report_chain.ok, report_chain
    gone = await api.client.get(f"/api/v1/instances/{norte}", headers=api.auth("classifier-norte"))
    assert gone.status_code == 404
    # The other tenant's case is whole.
    sul = cases["sul"]["id"]
    for route in API_ROUTES:
        kept = await api.client.get(
            f"/api/v1/instances/{sul}{route}", headers=api.auth("clerk-sul")
        )
        assert kept.status_code == 200, (route, kept.text)
    tasks = await api.client.get(f"/api/v1/instances/{sul}/tasks", headers=api.auth("clerk-sul"))
    assert [t["id"] for t in tasks.json()] == [cases["sul"]["task"]]


async def test_a_platform_administrator_acts_for_any_tenant_or_all(api: Api) -> None:
    await _people(api)
    cases = await _cases(api)
    directory = api.platform.directory
    await directory.ensure_profile(
        "platform", "Platform", ["workflow.read", "workflow.start", "workflow.tenants"]
    )
    admin = await directory.create_user("platform", display_name="platform", profile="platform")
    api.tokens["platform"] = issue_token(
        api.platform.settings.secret_key, admin.id, now=api.platform.clock.now()
    )
    every = api.auth("platform", **{"X-Tramita-Tenant": "*"})
    listed = await api.client.get("/api/v1/instances", headers=every)
    assert listed.status_code == 200, listed.text
    assert {i["id"] for i in listed.json()["items"]} >= {c["id"] for c in cases.values()}
    for key, case in cases.items():
        shown = await api.client.get(f"/api/v1/instances/{case['id']}", headers=every)
        assert shown.status_code == 200, (key, shown.text)
    only_sul = api.auth("platform", **{"X-Tramita-Tenant": "sul"})
    norte = await api.client.get(f"/api/v1/instances/{cases['norte']['id']}", headers=only_sul)
    sul = await api.client.get(f"/api/v1/instances/{cases['sul']['id']}", headers=only_sul)
    assert (norte.status_code, sul.status_code) == (404, 200)
    body = {"definition_key": "esic_like.request", "context": PERSONAL}
    nowhere = await api.client.post("/api/v1/instances", json=body, headers=every)
    assert nowhere.status_code == 422, nowhere.text
    started = await api.client.post("/api/v1/instances", json=body, headers=only_sul)
    assert started.status_code == 201, started.text
    in_sul = await api.client.get(
        f"/api/v1/instances/{started.json()['id']}", headers=api.auth("clerk-sul")
    )
    assert in_sul.status_code == 200
    # Without the permission, '*' is a tenant one does not work for.
    refused = await api.client.get(
        "/api/v1/instances", headers=api.auth("classifier-sul", **{"X-Tramita-Tenant": "*"})
    )
    assert refused.status_code == 403
