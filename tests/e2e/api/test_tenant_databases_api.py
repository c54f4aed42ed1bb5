"""Tenants on two databases (issue #25 item 6), through the API: ``TRAMITA_TENANT_DATABASES``
puts ``sul``'s cases on a second PostgreSQL database of this server while ``norte`` stays on
``TRAMITA_DATABASE_URL``. Each request is answered by its tenant's database: what a person of
one tenant starts is stored there only, and the other tenant's person sees it as an unknown id.
With the second database stopped, ``sul``'s requests get a 503 while ``norte`` goes on starting
and reading cases. (The relay and workers serving both databases as real processes, with one
stopped: ``tests/integration/durable/test_tenant_databases.py``.)"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner
from litestar.testing import AsyncTestClient

from contracts.errors import ConfigurationError
from core.app import Platform
from core.auth import issue_token
from core.clock import FixedClock
from core.db import sync_url
from core.ids import SequentialIdGen
from core.placement import upgrade_all, upgrade_each
from core.plugins import PluginHost
from core.settings import Settings
from core.tenants import Tenants
from services.workflow.bootstrap import WorkflowService, service_of
from services.workflow.handles import PLACEMENTS_KEY
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.apps import app_for
from tests.conftest import _branches
from tests.fakes.purchase import PurchasePlugin, order
from tests.second_database import SecondDatabase as Second
from tests.second_database import second_database

pytestmark = pytest.mark.postgresql_only
UNITS = "sul=67890"


@pytest.fixture
def second() -> Iterator[Second]:
    with second_database("tramita_sul") as found:
        yield found


def _host() -> PluginHost:
    host = PluginHost()
    host.discover(groups=["tramita.services"])
    host.register(PurchasePlugin(), "purchase_test")
    return host


async def _boot(home: str, second: Second, clock: FixedClock) -> Platform:
    return await Platform.boot(
        Settings(database_url=home, tenant_databases=(("sul", second.url),)),
        clock=clock,
        ids=SequentialIdGen(clock),
        host=_host(),
        upgrade=False,
    )


@dataclass
class Deployment:
    platform: Platform
    client: AsyncTestClient  # type: ignore[type-arg]
    tokens: dict[str, str] = field(default_factory=dict)
    users: dict[str, str] = field(default_factory=dict)

    def auth(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}"}

    @property
    def services(self) -> dict[str, WorkflowService]:
        placed = self.platform.extras[PLACEMENTS_KEY]
        return {"norte": service_of(self.platform), "sul": placed["sul"]}

    async def start(self, who: str) -> dict[str, str]:
        started = await self.client.post(
            "/api/v1/instances",
            json={"definition_key": "purchase.approval", "context": order(5000)},
            headers=self.auth(who),
        )
        assert started.status_code == 201, started.text
        return dict(started.json())


@pytest.fixture
async def deployment(
    database_url: str, second: Second, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Deployment]:
    monkeypatch.setenv("TRAMITA_WF_PROTOCOL_FORMAT", "nup")
    monkeypatch.setenv("TRAMITA_WF_PROTOCOL_UNIT", "00001")
    monkeypatch.setenv("TRAMITA_WF_TENANT_PROTOCOL_UNITS", UNITS)
    platform = await _boot(database_url, second, clock)
    try:
        tenants = Tenants(platform.database, platform.clock)
        await platform.directory.ensure_profile(
            "starter", "Starter", ["workflow.read", "workflow.start"]
        )
        tokens, users = {}, {}
        for key in ("norte", "sul"):
            await tenants.add(key, f"Prefeitura {key.title()}")
            person = await platform.directory.create_user(
                f"starter-{key}", display_name=f"starter {key}", profile="starter"
            )
            await tenants.join(person.id, key)
            tokens[key] = issue_token(platform.settings.secret_key, person.id, now=clock.now())
            users[key] = person.id
        with app_for(platform) as app:
            async with AsyncTestClient(app=app) as client:
                yield Deployment(platform=platform, client=client, tokens=tokens, users=users)
    finally:
        await platform.close()


def _stored(url: str, instance_id: str) -> bool:
    with psycopg.connect(sync_url(url).replace("+psycopg", "")) as conn:
        row = conn.execute(
            "SELECT tenant FROM workflow_instances WHERE id = %s", (instance_id,)
        ).fetchone()
    return row is not None


async def test_each_tenants_cases_live_on_its_database_and_stay_its_own(
    deployment: Deployment, database_url: str, second: Second
) -> None:
    services = deployment.services
    assert services["sul"].database is not deployment.platform.database
    assert services["sul"].settings.redis_prefix.startswith("tramita:db-")
    cases = {key: await deployment.start(key) for key in ("norte", "sul")}
    for service in services.values():
        await service.delivery.drain()
    assert _stored(database_url, cases["norte"]["id"])
    assert not _stored(second.url, cases["norte"]["id"])
    assert _stored(second.url, cases["sul"]["id"])
    assert not _stored(database_url, cases["sul"]["id"])
    assert cases["sul"]["protocol"].startswith("67890.")
    assert cases["norte"]["protocol"].startswith("00001.")
    get = deployment.client.get
    for mine, other in (("norte", "sul"), ("sul", "norte")):
        own = await get(f"/api/v1/instances/{cases[mine]['id']}", headers=deployment.auth(mine))
        assert own.status_code == 200, own.text
        history = await get(
            f"/api/v1/instances/{cases[mine]['id']}/history", headers=deployment.auth(mine)
        )
        assert history.status_code == 200 and history.json()
        theirs = await get(f"/api/v1/instances/{cases[other]['id']}", headers=deployment.auth(mine))
        assert theirs.status_code == 404
        found = await get("/api/v1/instances", headers=deployment.auth(mine))
        assert [row["id"] for row in found.json()["items"]] == [cases[mine]["id"]]


async def test_the_pages_answer_from_the_persons_tenants_database(
    deployment: Deployment,
) -> None:
    cases = {key: await deployment.start(key) for key in ("norte", "sul")}
    client = deployment.client
    for mine, other in (("norte", "sul"), ("sul", "norte")):
        session = await open_session(deployment.platform, deployment.users[mine])
        client.cookies.set(SESSION_COOKIE, str(session.value))
        own = await client.get(f"/cms/workflow/instances/{cases[mine]['id']}")
        assert own.status_code == 200 and cases[mine]["protocol"] in own.text
        theirs = await client.get(f"/cms/workflow/instances/{cases[other]['id']}")
        assert theirs.status_code == 404 and cases[other]["protocol"] not in theirs.text
        for key in (mine, other):
            search = await client.get(
                "/cms/workflow/search", params={"protocol": cases[key]["protocol"]}
            )
            assert search.status_code == 200
            shown = f"/cms/workflow/instances/{cases[key]['id']}" in search.text
            assert shown == (key == mine), (mine, key)
    client.cookies.delete(SESSION_COOKIE)


async def test_a_stopped_database_stops_only_its_own_tenants(
    deployment: Deployment, second: Second
) -> None:
    sul = await deployment.start("sul")
    second.stop()
    down = await deployment.client.get(
        f"/api/v1/instances/{sul['id']}", headers=deployment.auth("sul")
    )
    assert down.status_code == 503, down.text
    assert down.json()["type"].endswith("/service-unavailable")
    assert down.headers["retry-after"] == "5"
    assert "Traceback" not in down.text and second.name not in down.text
    # The other tenant's work goes on, start to history.
    norte = await deployment.start("norte")
    await deployment.services["norte"].delivery.drain()
    read = await deployment.client.get(
        f"/api/v1/instances/{norte['id']}/history", headers=deployment.auth("norte")
    )
    assert read.status_code == 200 and read.json()


async def test_a_process_boots_while_a_tenants_database_is_down(
    database_url: str, second: Second, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its migrations and its definitions are left for the next boot; the others are served."""
    monkeypatch.setenv("TRAMITA_WF_TENANT_PROTOCOL_UNITS", UNITS)
    monkeypatch.setenv("TRAMITA_WF_PROTOCOL_FORMAT", "nup")
    monkeypatch.setenv("TRAMITA_WF_PROTOCOL_UNIT", "00001")
    second.stop()
    settings = Settings(database_url=database_url, tenant_databases=(("sul", second.url),))
    await upgrade_each(settings, _branches())  # logged, not raised
    with pytest.raises(Exception, match="not currently accepting connections"):
        upgrade_all(settings, _branches())  # `tramita db upgrade` says so
    platform = await _boot(database_url, second, clock)
    try:
        assert "sul" in platform.extras[PLACEMENTS_KEY]
        assert (await service_of(platform).engine.tick()) == 0
    finally:
        await platform.close()


async def test_a_placed_tenant_without_its_own_protocol_series_is_refused(
    database_url: str, second: Second, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TRAMITA_WF_TENANT_PROTOCOL_UNITS", raising=False)
    with pytest.raises(ConfigurationError) as refused:
        await _boot(database_url, second, clock)
    assert refused.value.fields.get("tenant") == "sul"
    assert "TRAMITA_WF_TENANT_PROTOCOL_UNITS" in refused.value.detail


async def test_a_command_acts_on_a_tenants_database_with_for(
    deployment: Deployment, database_url: str, second: Second, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tramita --for sul …`` reads ``sul``'s cases on its database; people and memberships
    (``--as``) are still read on the home one. Without it, the command acts on the home one."""
    from core.cli import main

    sul = await deployment.start("sul")
    monkeypatch.setenv("TRAMITA_DATABASE_URL", database_url)
    monkeypatch.setenv("TRAMITA_TENANT_DATABASES", f"sul={second.url}")
    monkeypatch.setenv("LANG", "en")

    def tramita(*args: str) -> Any:
        return CliRunner().invoke(main, list(args), catch_exceptions=False)

    show = ("instance", "show", sul["protocol"], "--as", deployment.users["sul"], "--json")
    found = await asyncio.to_thread(tramita, "--for", "sul", *show)
    assert found.exit_code == 0, found.output
    assert json.loads(found.output)["instance"]["id"] == sul["id"]
    listed = await asyncio.to_thread(
        tramita, "--for", "sul", "instance", "list", "--as", deployment.users["sul"], "--json"
    )
    assert listed.exit_code == 0, listed.output
    assert [row["id"] for row in json.loads(listed.output)["instances"]] == [sul["id"]]
    for elsewhere in ((), ("--for", "norte")):
        missing = await asyncio.to_thread(tramita, *elsewhere, *show)
        assert missing.exit_code == 1, missing.output
    bad = await asyncio.to_thread(tramita, "--for", "Not A Key", *show)
    assert bad.exit_code == 2 and "--for" in bad.output


async def test_purging_a_placed_tenant_deletes_its_cases_on_its_database(
    deployment: Deployment, database_url: str, second: Second, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tramita privacy purge-tenant sul`` deletes ``sul``'s cases where they live, its own
    database, and leaves ``norte``'s on the home one."""
    from services.workflow.cli.privacy import privacy_group

    cases = {key: await deployment.start(key) for key in ("norte", "sul")}
    monkeypatch.setenv("TRAMITA_DATABASE_URL", database_url)
    monkeypatch.setenv("TRAMITA_TENANT_DATABASES", f"sul={second.url}")
    done = await asyncio.to_thread(
        CliRunner().invoke, privacy_group, ["purge-tenant", "sul", "--yes", "--json"]
    )
    assert done.exit_code == 0, (done.output, done.exception)
    assert json.loads(done.output)["cases"] == 1
    assert not _stored(second.url, cases["sul"]["id"])
    assert _stored(database_url, cases["norte"]["id"])


async def test_audit_reads_for_a_placed_tenant_names_its_readers(
    deployment: Deployment, database_url: str, second: Second, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tramita --for sul audit reads`` reads the entries on ``sul``'s database and the
    readers' names on the home one, where people live."""
    from contracts.kernel import Actor, AuditEntry
    from contracts.workflow.case import CASE_OPENED
    from core.cli import main

    sul = await deployment.start("sul")
    async with deployment.services["sul"].engine._uow() as uow:  # an opening, as a page writes it
        await uow.audit.append(
            AuditEntry(
                action=CASE_OPENED,
                object_type="workflow_instance",
                object_id=sul["id"],
                actor=Actor(id=deployment.users["sul"]),
                after={"level": "restricted"},
            )
        )
        await uow.commit()
    monkeypatch.setenv("TRAMITA_DATABASE_URL", database_url)
    monkeypatch.setenv("TRAMITA_TENANT_DATABASES", f"sul={second.url}")
    reads = ("--for", "sul", "audit", "reads", "--instance", sul["id"], "--json")
    listed = await asyncio.to_thread(CliRunner().invoke, main, list(reads))
    assert listed.exit_code == 0, (listed.output, listed.exception)
    (row,) = json.loads(listed.output)
    assert (row["actor"], row["name"]) == (deployment.users["sul"], "starter sul")


async def test_a_subjects_export_gathers_every_database(
    deployment: Deployment, database_url: str, second: Second, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tramita privacy export`` finds the data subject in every tenant's cases, on the home
    database and on each placed one (``privacy purge`` walks them the same way)."""
    from services.workflow.cli.privacy import privacy_group

    cases = {key: await deployment.start(key) for key in ("norte", "sul")}
    monkeypatch.setenv("TRAMITA_DATABASE_URL", database_url)
    monkeypatch.setenv("TRAMITA_TENANT_DATABASES", f"sul={second.url}")
    exported = await asyncio.to_thread(
        CliRunner().invoke, privacy_group, ["export", "maria@example.org"]
    )
    assert exported.exit_code == 0, (exported.output, exported.exception)
    found = {record["protocol"] for record in json.loads(exported.output)["records"]}
    assert found == {cases["norte"]["protocol"], cases["sul"]["protocol"]}
    purged = await asyncio.to_thread(
        CliRunner().invoke, privacy_group, ["purge", "--dry-run", "--json"]
    )
    assert purged.exit_code == 0, (purged.output, purged.exception)
