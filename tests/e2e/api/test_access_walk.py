"""The authorisation walk (issue #23 item 2): for each access level and each role, every route
that shows an instance — API, page, command — either shows it or refuses, and a refusal is
exactly what an unknown id answers (it never tells that a hidden case exists). Search and the
inbox leave hidden cases out; the citizen's timeline of a restricted case shows its status only.

One fixture (three cases, seven people) and many asserts, on both databases.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from click.testing import CliRunner

from core.auth import issue_token
from services.workflow.cli.instance_list import list_instances_cmd
from services.workflow.cli.workflow import show_cmd
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api
from tests.e2e.api.esic_like import PERSONAL
from tests.e2e.api.human_helpers import user_id

LEVELS = ("public", "restricted", "secret")
ROLES = ("reader", "manager", "requester", "classifier", "granted", "revoked")
SEES = {
    # who may see a case of each level: the starter (requester) and the queue's member
    # (manager) are involved; the classifier made the secret case secret (so it holds
    # a grant); granted holds one; revoked lost its own.
    "public": set(ROLES),
    "restricted": {"manager", "requester", "classifier"},
    "secret": {"classifier", "granted"},
}
MEMBERS = {"manager"}
"""Members of the case's task queue: the only ones whose inbox can list its task."""
API_ROUTES = (
    "",
    "/history",
    "/tasks",
    "/audit",
    "/documents",
    "/deadlines",
    "/access",
)
PAGE_ROUTES = ("", "/deadlines", "/tasks/{task}")


async def _person(api: Api, key: str, *permissions: str) -> str:
    directory = api.platform.directory
    await directory.ensure_profile(key, key.title(), permissions)
    made = await directory.create_user(f"{key}-user", display_name=key, profile=key)
    api.tokens[key] = issue_token(
        api.platform.settings.secret_key, made.id, now=api.platform.clock.now()
    )
    return str(made.id)


async def _cases(api: Api) -> dict[str, dict[str, Any]]:
    """Three requests started by ``requester``, each waiting on a task of the juridico queue;
    the classifier makes one restricted and one secret, grants and revokes."""
    for key in ("classifier", "granted", "revoked"):
        permissions = ["workflow.read"] + (["workflow.classify"] if key == "classifier" else [])
        await _person(api, key, *permissions)
    cases: dict[str, dict[str, Any]] = {}
    for level in LEVELS:
        started = await api.client.post(
            "/api/v1/instances",
            json={"definition_key": "esic_like.request", "context": PERSONAL},
            headers=api.auth("requester"),
        )
        assert started.status_code == 201, started.text
        cases[level] = started.json()
    await api.drain()
    for level, case in cases.items():
        tasks = await api.client.get(f"/api/v1/instances/{case['id']}/tasks", headers=api.auth())
        (task,) = tasks.json()
        case["task"] = task["id"]
        if level == "public":
            continue
        ground = "lai.art31" if level == "restricted" else "lai.art23"
        changed = await api.client.post(
            f"/api/v1/instances/{case['id']}/access",
            json={"level": level, "ground": ground, "reason": "Dados pessoais do requerente"},
            headers=api.auth("classifier"),
        )
        assert changed.status_code == 200, changed.text
        assert changed.json()["level"] == level
    secret = cases["secret"]["id"]
    grants = {}
    for who in ("granted", "revoked"):
        granted = await api.client.post(
            f"/api/v1/instances/{secret}/access/grants",
            json={"user_id": user_id(api, who), "reason": "Instrução do processo"},
            headers=api.auth("classifier"),
        )
        assert granted.status_code == 201, granted.text
        grants[who] = granted.json()["id"]
    revoked = await api.client.post(
        f"/api/v1/instances/{secret}/access/grants/{grants['revoked']}/revoke",
        json={"reason": "Fim da instrução"},
        headers=api.auth("classifier"),
    )
    assert revoked.status_code == 204, revoked.text
    return cases


def _same(text: str, *ids: str) -> str:
    for value in ids:
        text = text.replace(value, "ID")
    return text


async def _api_walk(api: Api, cases: dict[str, dict[str, Any]]) -> int:
    """Each person's requests go out together (one gather per person): the walk stays fast."""
    checked = 0
    unknown, unknown_task = str(uuid.uuid4()), str(uuid.uuid4())
    get, post = api.client.get, api.client.post
    for role in ROLES:
        headers = api.auth(role)
        paths = [(level, route) for level in (*LEVELS, None) for route in API_ROUTES]
        answers = await asyncio.gather(
            *(
                get(
                    f"/api/v1/instances/{cases[level]['id'] if level else unknown}{route}",
                    headers=headers,
                )
                for level, route in paths
            ),
            *(
                get(
                    "/api/v1/instances",
                    params={"protocol": cases[level]["protocol"]},
                    headers=headers,
                )
                for level in LEVELS
            ),
            get("/api/v1/tasks?limit=100", headers=headers),
            *(
                post(f"/api/v1/tasks/{cases[level]['task']}/claim", headers=headers)
                for level in LEVELS
            ),
            post(f"/api/v1/tasks/{unknown_task}/claim", headers=headers),
        )
        by_path = dict(zip(paths, answers, strict=False))
        found = dict(zip(LEVELS, answers[len(paths) :], strict=False))
        inbox = answers[len(paths) + len(LEVELS)]
        claims = dict(zip(LEVELS, answers[len(paths) + len(LEVELS) + 1 :], strict=False))
        claim_refusal = (answers[-1].status_code, _same(answers[-1].text, unknown_task))
        listed = {item["id"] for item in inbox.json()["items"]} if inbox.is_success else set()
        for level, case in cases.items():
            sees = role in SEES[level]
            for route in API_ROUTES:
                answer, where = by_path[(level, route)], (role, level, route)
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
            assert found[level].status_code == 200, found[level].text
            items = [i["id"] for i in found[level].json()["items"]]
            assert items == ([case["id"]] if sees else []), (role, level, "search")
            assert (case["task"] in listed) == (sees and role in MEMBERS), (role, level, "inbox")
            if not sees:  # the same answer as an unknown task, whatever the role may do
                claim = claims[level]
                assert (claim.status_code, _same(claim.text, case["task"])) == claim_refusal, (
                    role,
                    level,
                    "claim",
                )
            checked += 3
    return checked


async def _page_walk(api: Api, cases: dict[str, dict[str, Any]]) -> int:
    checked = 0
    unknown = str(uuid.uuid4())
    get = api.client.get
    for role in ROLES:
        session = await open_session(api.platform, user_id(api, role))
        api.client.cookies.set(SESSION_COOKIE, str(session.value))
        paths = [(level, route) for level in (*LEVELS, None) for route in PAGE_ROUTES]
        answers = await asyncio.gather(
            *(
                get(
                    ("/cms/workflow/instances/{id}" + route).format(
                        id=cases[level]["id"] if level else unknown,
                        task=cases[level]["task"] if level else unknown,
                    )
                )
                for level, route in paths
            ),
            *(
                get("/cms/workflow/search", params={"protocol": cases[level]["protocol"]})
                for level in LEVELS
            ),
            get("/cms/workflow/inbox"),
        )
        by_path = dict(zip(paths, answers, strict=False))
        searched = dict(zip(LEVELS, answers[len(paths) :], strict=False))
        inbox = answers[-1]
        for level, case in cases.items():
            sees = role in SEES[level]
            for route in PAGE_ROUTES:
                shown, where = by_path[(level, route)], (role, level, route)
                if sees:
                    assert shown.status_code != 404, where
                else:
                    assert shown.status_code == by_path[(None, route)].status_code == 404, where
                    assert case["protocol"] not in shown.text, where
                    assert "não encontrad" in shown.text.lower(), where
                checked += 1
            search = searched[level]
            assert search.status_code == 200, search.text
            assert (f"/cms/workflow/instances/{case['id']}" in search.text) == sees, (role, level)
            if inbox.status_code == 200:
                assert (case["protocol"] in inbox.text) == (sees and role in MEMBERS), (
                    role,
                    level,
                    "inbox page",
                )
            checked += 2
    api.client.cookies.delete(SESSION_COOKIE)
    return checked


def _cli(command: Any, *args: str) -> Any:
    return CliRunner().invoke(command, list(args))


async def _cli_walk(api: Api, cases: dict[str, dict[str, Any]]) -> int:
    checked = 0
    for role in ROLES:
        me = user_id(api, role)
        unknown = await asyncio.to_thread(_cli, show_cmd, str(uuid.uuid4()), "--as", me)
        listed = await asyncio.to_thread(_cli, list_instances_cmd, "--as", me, "--json")
        assert listed.exit_code == 0, listed.output
        for level, case in cases.items():
            sees = role in SEES[level]
            shown = await asyncio.to_thread(_cli, show_cmd, case["protocol"], "--as", me)
            if sees:
                assert shown.exit_code == 0, (role, level, shown.output, shown.exception)
                assert case["protocol"] in shown.output
            else:
                assert (shown.exit_code, shown.output) == (unknown.exit_code, unknown.output)
                assert unknown.exit_code != 0 and case["protocol"] not in shown.output
            assert (case["protocol"] in listed.output) == sees, (role, level, "list")
            checked += 2
    nobody = await asyncio.to_thread(_cli, list_instances_cmd, "--json")
    assert cases["public"]["protocol"] in nobody.output
    assert cases["restricted"]["protocol"] not in nobody.output
    return checked


async def _timeline_walk(api: Api, cases: dict[str, dict[str, Any]]) -> None:
    for level, expect_steps in (("public", True), ("restricted", False)):
        link = await api.client.post(
            f"/api/v1/instances/{cases[level]['id']}/public-link", headers=api.auth("requester")
        )
        assert link.status_code == 201, link.text
        body = (await api.client.get(link.json()["path"] + "/json")).json()
        assert body["protocol"] == cases[level]["protocol"]
        assert body["status"] == "Em análise"
        assert bool(body["steps"]) is expect_steps, level
        page = await api.client.get(link.json()["path"])
        assert page.status_code == 200
        assert ("Recebido" in page.text) is expect_steps, level


async def test_every_route_shows_or_refuses_without_revealing_a_hidden_case(
    api: Api, database_url: str, monkeypatch: Any
) -> None:
    monkeypatch.setenv("TRAMITA_DATABASE_URL", database_url)
    cases = await _cases(api)
    import time

    t0 = time.perf_counter()
    checked = await _api_walk(api, cases)
    t1 = time.perf_counter()
    checked += await _page_walk(api, cases)
    t2 = time.perf_counter()
    checked += await _cli_walk(api, cases)
    t3 = time.perf_counter()
    await _timeline_walk(api, cases)
    print("TIMES", t1 - t0, t2 - t1, t3 - t2, time.perf_counter() - t3)
    assert checked == len(ROLES) * len(LEVELS) * (len(API_ROUTES) + 3 + len(PAGE_ROUTES) + 2 + 2)


async def test_levels_need_a_ground_from_the_list_and_changes_are_audited(api: Api) -> None:
    await _person(api, "classifier", "workflow.read", "workflow.classify")
    started = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "esic_like.request", "context": PERSONAL},
        headers=api.auth("requester"),
    )
    iid = started.json()["id"]
    path = f"/api/v1/instances/{iid}/access"
    body = {"level": "restricted", "reason": "LAI"}
    no_ground = await api.client.post(path, json=body, headers=api.auth("classifier"))
    assert no_ground.status_code == 422, no_ground.text
    wrong = await api.client.post(
        path, json={**body, "ground": "lai.art99"}, headers=api.auth("classifier")
    )
    assert wrong.status_code == 422, wrong.text
    clerk = await api.client.post(
        path, json={**body, "ground": "lai.art31"}, headers=api.auth("reader")
    )
    assert clerk.status_code == 403
    done = await api.client.post(
        path, json={**body, "ground": "lai.art31"}, headers=api.auth("classifier")
    )
    assert done.status_code == 200, done.text
    trail = await api.client.get(f"/api/v1/instances/{iid}/audit", headers=api.auth("classifier"))
    (entry,) = [e for e in trail.json() if e["action"] == "workflow.access.changed"]
    assert entry["after"] == {"level": "restricted", "ground": "lai.art31"}
    assert entry["reason"] == "LAI"
    assert entry["actor"]["id"] == user_id(api, "classifier")
    session = await open_session(api.platform, user_id(api, "classifier"))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    page = await api.client.get(f"/cms/workflow/instances/{iid}")
    assert page.status_code == 200, page.text
    assert "Restrito — Informação pessoal (LAI, art. 31)" in page.text


async def test_the_commands_set_grant_with_expiry_and_revoke(
    api: Api, database_url: str, monkeypatch: Any
) -> None:
    from services.workflow.cli.access import grant_cmd, revoke_cmd, set_cmd
    from services.workflow.runtime.ports.access import Viewer

    monkeypatch.setenv("TRAMITA_DATABASE_URL", database_url)
    me = await _person(api, "classifier", "workflow.read", "workflow.classify")
    started = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "esic_like.request", "context": PERSONAL},
        headers=api.auth("requester"),
    )
    protocol, iid = started.json()["protocol"], started.json()["id"]
    clerk = await asyncio.to_thread(
        _cli,
        set_cmd,
        protocol,
        "secret",
        "--ground",
        "lai.art23",
        "--reason",
        "x",
        "--as",
        user_id(api, "reader"),
    )
    assert clerk.exit_code != 0 and "não tem a permissão" in clerk.output, clerk.output
    done = await asyncio.to_thread(
        _cli, set_cmd, protocol, "secret", "--ground", "lai.art23", "--reason", "LAI", "--as", me
    )
    assert done.exit_code == 0, (done.output, done.exception)
    assert "sigiloso" in done.output
    granted = await asyncio.to_thread(
        _cli,
        grant_cmd,
        protocol,
        user_id(api, "reader"),
        "--until",
        "2099-01-31T12:00:00",
        "--reason",
        "Instrução",
        "--as",
        me,
    )
    assert granted.exit_code == 0, (granted.output, granted.exception)
    grant_id = granted.output.strip().rsplit(" ", 1)[-1]
    view = await api.service.access.view(iid, Viewer(tenant="default", user_id=me))
    (_mine, theirs) = sorted(view.grants, key=lambda g: g.user_id != me)
    assert (theirs.id, theirs.user_id) == (grant_id, user_id(api, "reader"))
    assert theirs.expires_at is not None and theirs.expires_at.year == 2099
    seen = await api.client.get(f"/api/v1/instances/{iid}", headers=api.auth("reader"))
    assert seen.status_code == 200
    revoked = await asyncio.to_thread(
        _cli, revoke_cmd, protocol, grant_id, "--reason", "Fim", "--as", me
    )
    assert revoked.exit_code == 0, (revoked.output, revoked.exception)
    gone = await api.client.get(f"/api/v1/instances/{iid}", headers=api.auth("reader"))
    assert gone.status_code == 404


async def test_a_grant_stops_counting_at_its_expiry(api: Api, clock: Any) -> None:
    from datetime import timedelta

    await _person(api, "classifier", "workflow.read", "workflow.classify")
    started = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "esic_like.request", "context": PERSONAL},
        headers=api.auth("requester"),
    )
    iid = started.json()["id"]
    path = f"/api/v1/instances/{iid}/access"
    body = {"level": "secret", "ground": "lai.art23", "reason": "LAI"}
    assert (await api.client.post(path, json=body, headers=api.auth("classifier"))).is_success
    until = (clock.now() + timedelta(hours=1)).isoformat()
    past = (clock.now() - timedelta(hours=1)).isoformat()
    grant = {"user_id": user_id(api, "reader"), "reason": "Consulta"}
    refused = await api.client.post(
        f"{path}/grants", json={**grant, "expires_at": past}, headers=api.auth("classifier")
    )
    assert refused.status_code == 422, refused.text
    made = await api.client.post(
        f"{path}/grants", json={**grant, "expires_at": until}, headers=api.auth("classifier")
    )
    assert made.status_code == 201, made.text
    reader = api.auth("reader")
    assert (await api.client.get(f"/api/v1/instances/{iid}", headers=reader)).status_code == 200
    clock.advance(timedelta(hours=2))
    assert (await api.client.get(f"/api/v1/instances/{iid}", headers=reader)).status_code == 404
    found = await api.client.get("/api/v1/instances", params={"limit": 100}, headers=reader)
    assert iid not in [i["id"] for i in found.json()["items"]]
    # the starter may not see the secret case: a message to it is a message to nobody
    protocol, other = started.json()["protocol"], "SIC-2026-999999"
    answers = [
        await api.client.post(
            "/api/v1/messages",
            json={"name": "resposta", "protocol": p},
            headers=api.auth("requester"),
        )
        for p in (protocol, other)
    ]
    assert answers[0].status_code == answers[1].status_code == 404
    assert answers[0].text.replace(protocol, "P") == answers[1].text.replace(other, "P")
