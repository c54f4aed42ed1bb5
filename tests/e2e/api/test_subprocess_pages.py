"""The pages of an embedded sub-process's child, on SQLite and PostgreSQL (issue #24): the
child runs the sub-process's nodes under the key ``<key>.<node id>``, which no version row
carries, and its task page and repair form still read that sub-process's definition — the
inner task's name, the outcome names it gives and the inner steps — and the parent's page
and the API's view of it list it among the processes it started."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from contracts.hookspecs import hookimpl
from contracts.workflow.types import StartRequest
from core.app import Platform
from core.auth import issue_token
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.plugins import PluginHost
from core.settings import Settings
from services.workflow.bootstrap import service_of
from services.workflow.runtime.services.calls import child_id
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.apps import client_for
from tests.e2e.api.conftest import ALL_WORKFLOW
from tests.integration.workflow.test_subprocess import OFFICER, SubPlugin, definition


class NamedPlugin(SubPlugin):
    """The sub-process test's definition, its inner task deciding with named outcomes."""

    @hookimpl
    def tramita_register_workflows(self, registry: Any) -> None:
        defn = definition()
        (review,) = [n for n in defn["nodes"][1]["nodes"] if n["id"] == "review"]
        del review["next"]
        review["outcomes"] = {"approve": "end", "reject": "end"}
        review["outcome_names"] = {"approve": "Conferido", "reject": "Devolver ao início"}
        registry.add(defn)


@pytest.fixture
async def client(
    database_url: str, clock: FixedClock
) -> AsyncIterator[tuple[Platform, AsyncTestClient[Any]]]:
    host = PluginHost()
    host.discover(groups=["tramita.services"])
    host.register(NamedPlugin(), "sub_pages_test")
    platform = await Platform.boot(
        Settings(database_url=database_url),
        clock=clock,
        ids=SequentialIdGen(clock),
        host=host,
        upgrade=False,
    )
    try:
        await platform.directory.ensure_profile("admin", "Admin", ALL_WORKFLOW)
        user = await platform.directory.create_user("admin-user", display_name="A", profile="admin")
        session = await open_session(platform, user.id)
        token = issue_token(platform.settings.secret_key, user.id, now=platform.clock.now())
        async with client_for(platform) as http:
            http.cookies.set(SESSION_COOKIE, str(session.value))  # the pages
            http.headers["Authorization"] = f"Bearer {token}"  # the API
            yield platform, http
    finally:
        await platform.close()


def _buttons(html: str) -> dict[str, str]:
    """Each outcome radio's value and the text of its label."""
    found = re.findall(
        r'<input type="radio" id="outcome-(\w+)" name="outcome" value="\1"[^>]*>'
        r'<label for="outcome-\1">([^<]*)</label>',
        html,
    )
    return dict(found)


async def test_a_subprocess_childs_pages_read_its_definition_and_its_parent_lists_it(
    client: tuple[Platform, AsyncTestClient[Any]],
) -> None:
    platform, http = client
    engine = service_of(platform).engine
    parent = await engine.start(
        StartRequest(definition_key="sub.parent", context={"amount": 10}, actor=OFFICER)
    )
    (token,) = await engine.tokens(parent.id)
    await service_of(platform).delivery.drain()
    kid = child_id(parent.id, token.id, "analysis", token.attempt_group)
    (task,) = await engine.tasks(kid)
    assert (await engine.status(kid)).definition_key == "sub.parent.analysis"

    page = await http.get(f"/cms/workflow/instances/{kid}/tasks/{task.id}")
    assert page.status_code == 200, page.text
    assert "<h1>Conferir " in page.text
    assert _buttons(page.text) == {"approve": "Conferido", "reject": "Devolver ao início"}

    repair = await http.get(f"/cms/workflow/instances/{kid}/repair")
    assert repair.status_code == 200, repair.text
    steps = re.findall(r'<option value="(\w+)"[^>]*>([^<]*)</option>', repair.text)
    assert ("review", "Conferir (review)") in steps
    assert {"check", "review", "end"} <= {value for value, _ in steps}

    case = await http.get(f"/cms/workflow/instances/{parent.id}")  # lists the child it runs
    assert f'<a href="/cms/workflow/instances/{kid}">' in case.text
    shown = await http.get(f"/api/v1/instances/{parent.id}")
    assert [c["id"] for c in shown.json()["children"]] == [kid]
