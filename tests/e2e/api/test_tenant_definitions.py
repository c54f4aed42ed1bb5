"""A tenant's own definitions (issue #25 item 1): what a person acting for a tenant publishes is
that tenant's; only its people see it (API and pages) and only its cases run it. The
deployment's definitions stay shared by every tenant. To another tenant an owned definition is
exactly an unknown key, and its key cannot be taken over, nor a shared definition changed, from
another tenant."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

from click.testing import CliRunner

from core.auth import issue_token
from core.tenants import Tenants
from services.workflow.handles import handles_of
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api
from tests.e2e.api.esic_like import DEFINITION, PERSONAL
from tests.e2e.api.human_helpers import user_id

TENANTS = ("norte", "sul")
PERMISSIONS = ["workflow.read", "workflow.start", "workflow.publish"]


async def _people(api: Api) -> None:
    tenants = Tenants(api.platform.database, api.platform.clock)
    directory = api.platform.directory
    await directory.ensure_profile("t-designer", "Designer", PERMISSIONS)
    for key in TENANTS:
        await tenants.add(key, f"Prefeitura {key.title()}")
        made = await directory.create_user(
            f"designer-{key}", display_name=key, profile="t-designer"
        )
        await tenants.join(made.id, key)
        api.tokens[key] = issue_token(
            api.platform.settings.secret_key, made.id, now=api.platform.clock.now()
        )
    await directory.ensure_profile("platform", "Platform", ["workflow.read", "workflow.tenants"])
    admin = await directory.create_user("platform", display_name="platform", profile="platform")
    api.tokens["platform"] = issue_token(
        api.platform.settings.secret_key, admin.id, now=api.platform.clock.now()
    )


def _own(key: str) -> dict[str, Any]:
    definition = copy.deepcopy(DEFINITION)
    definition["key"], definition["name"] = key, f"Pedido de {key}"
    return definition


async def _every_version(api: Api) -> list[tuple[str, int]]:
    """Every published version, as a platform administrator acting for every tenant sees them."""
    every = await api.client.get(
        "/api/v1/workflows", headers=api.auth("platform", **{"X-Tramita-Tenant": "*"})
    )
    assert every.status_code == 200, every.text
    return [(v["key"], v["version"]) for v in every.json()]


def _without(text: str, key: str) -> str:
    return text.replace(key, "KEY")


async def test_a_tenants_own_definition_is_seen_and_run_by_that_tenant_alone(api: Api) -> None:
    await _people(api)
    client = api.client
    published = await client.post(
        "/api/v1/workflows", json=_own("norte.pedido"), headers=api.auth("norte")
    )
    assert published.status_code == 201, published.text
    assert (published.json()["tenant"], published.json()["version"]) == ("norte", 1)

    listed = {
        who: {
            v["key"] for v in (await client.get("/api/v1/workflows", headers=api.auth(who))).json()
        }
        for who in (*TENANTS, "admin")
    }
    assert "norte.pedido" in listed["norte"] and "esic_like.request" in listed["norte"]
    assert "norte.pedido" not in listed["sul"] and "esic_like.request" in listed["sul"]
    assert "norte.pedido" not in listed["admin"]  # the deployment's tenant is another tenant
    assert "norte.pedido" in {key for key, _ in await _every_version(api)}

    read, unknown = [
        await client.get(f"/api/v1/workflows/{key}/versions/1", headers=api.auth("sul"))
        for key in ("norte.pedido", "nada.aqui")
    ]
    assert read.status_code == 404
    assert (read.status_code, _without(read.text, "norte.pedido")) == (
        unknown.status_code,
        _without(unknown.text, "nada.aqui"),
    )
    mine = await client.get("/api/v1/workflows/norte.pedido/versions/1", headers=api.auth("norte"))
    assert mine.status_code == 200, mine.text

    starts = {
        (who, key): await client.post(
            "/api/v1/instances",
            json={"definition_key": key, "context": PERSONAL},
            headers=api.auth(who),
        )
        for who, key in (("sul", "norte.pedido"), ("sul", "nada.aqui"), ("norte", "norte.pedido"))
    }
    refused, nothing = starts[("sul", "norte.pedido")], starts[("sul", "nada.aqui")]
    assert refused.status_code == 404
    assert _without(refused.text, "norte.pedido") == _without(nothing.text, "nada.aqui")
    started = starts[("norte", "norte.pedido")]
    assert started.status_code == 201, started.text
    seen = await client.get(f"/api/v1/instances/{started.json()['id']}", headers=api.auth("sul"))
    assert seen.status_code == 404  # a case of norte's
    shared = await client.post(
        "/api/v1/instances",
        json={"definition_key": "esic_like.request", "context": PERSONAL},
        headers=api.auth("sul"),
    )
    assert shared.status_code == 201, shared.text


async def test_another_owners_key_is_refused_and_nothing_is_published(api: Api) -> None:
    await _people(api)
    client = api.client
    first = await client.post(
        "/api/v1/workflows", json=_own("norte.pedido"), headers=api.auth("norte")
    )
    assert first.status_code == 201, first.text
    changed = {**_own("norte.pedido"), "name": "Outro"}
    taken = await client.post("/api/v1/workflows", json=changed, headers=api.auth("sul"))
    assert taken.status_code == 409, taken.text
    assert taken.json()["code"] == "definition_key_taken"
    shared = {**copy.deepcopy(DEFINITION), "name": "Mudado pelo norte"}
    refused = await client.post("/api/v1/workflows", json=shared, headers=api.auth("norte"))
    assert refused.status_code == 409, refused.text
    assert refused.json()["code"] == "definition_shared"
    assert "Traceback" not in refused.text
    every = await _every_version(api)
    assert sorted(v for v in every if v[0] != "purchase.approval") == [
        ("esic_like.request", 1),
        ("norte.pedido", 1),
    ]
    again = await client.post("/api/v1/workflows", json=changed, headers=api.auth("norte"))
    assert (again.status_code, again.json()["version"]) == (201, 2)


async def test_the_definitions_page_lists_the_tenants_own_and_the_shared(api: Api) -> None:
    await _people(api)
    published = await api.client.post(
        "/api/v1/workflows", json=_own("norte.pedido"), headers=api.auth("norte")
    )
    assert published.status_code == 201, published.text
    for who in TENANTS:
        session = await open_session(api.platform, user_id(api, who))
        api.client.cookies.set(SESSION_COOKIE, str(session.value))
        index = await api.client.get("/cms/workflow/definitions")
        assert index.status_code == 200
        assert "esic_like.request" in index.text
        assert ("norte.pedido" in index.text) == (who == "norte"), who
        version = await api.client.get("/cms/workflow/definitions/norte.pedido/versions/1")
        assert version.status_code == (200 if who == "norte" else 404), who
    api.client.cookies.delete(SESSION_COOKIE)


async def _sign_in(api: Api, who: str) -> dict[str, str]:
    session = await open_session(api.platform, user_id(api, who))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    assert (await api.client.get("/cms/workflow/drafts/new")).status_code == 200
    return {"x-csrftoken": api.client.cookies["tramita_csrf"]}


async def _new_draft(api: Api, who: str) -> str:
    """A blank draft made on the editor's page by ``who``; its page's path."""
    headers = await _sign_in(api, who)
    made = await api.client.post(
        "/cms/workflow/drafts/new",
        data={"key": f"{who}.ferias", "name": "Férias", "protocol_prefix": "FER"},
        headers=headers,
        follow_redirects=False,
    )
    assert made.status_code == 303, made.text
    return str(made.headers["location"]).split("?")[0]


async def test_a_tenants_drafts_are_its_own(api: Api) -> None:
    await _people(api)
    draft = await _new_draft(api, "norte")
    assert "norte.ferias" in (await api.client.get("/cms/workflow/drafts")).text
    assert (await api.client.get(draft)).status_code == 200
    await _sign_in(api, "sul")
    assert "norte.ferias" not in (await api.client.get("/cms/workflow/drafts")).text
    hidden = await api.client.get(draft)
    assert hidden.status_code == 404
    assert "norte.ferias" not in hidden.text
    api.client.cookies.delete(SESSION_COOKIE)


async def test_a_purged_tenant_leaves_no_definition_or_draft_behind(
    api: Api, database_url: str, monkeypatch: Any
) -> None:
    from services.workflow.cli.privacy import privacy_group

    monkeypatch.setenv("TRAMITA_DATABASE_URL", database_url)
    await _people(api)
    for key in ("norte.pedido", "sul.pedido"):
        who = key.split(".")[0]
        published = await api.client.post(
            "/api/v1/workflows", json=_own(key), headers=api.auth(who)
        )
        assert published.status_code == 201, published.text
    started = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "norte.pedido", "context": PERSONAL},
        headers=api.auth("norte"),
    )
    assert started.status_code == 201, started.text
    await api.drain()
    await _new_draft(api, "norte")
    api.client.cookies.delete(SESSION_COOKIE)

    done = await asyncio.to_thread(
        CliRunner().invoke, privacy_group, ["purge-tenant", "norte", "--yes", "--json"]
    )
    assert done.exit_code == 0, (done.output, done.exception)
    rows = json.loads(done.output)["rows"]
    assert (rows["workflow_definitions"], rows["workflow_versions"]) == (1, 1), rows
    assert rows["workflow_definition_drafts"] == 1, rows
    keys = {key for key, _ in await _every_version(api)}
    assert "norte.pedido" not in keys and {"sul.pedido", "esic_like.request"} <= keys
    drafts = await handles_of(api.platform).drafts.list_drafts()
    assert [d.definition_key for d in drafts if d.definition_key == "norte.ferias"] == []
