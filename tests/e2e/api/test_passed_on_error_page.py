"""The instance page says why a case failed when a business error passed outward through one of
its sub-processes or calls (issue #24): not that an automatic step raised it, but that the
step's sub-process or called process ended with that error and no route of the step took it
(pt-BR and English; both databases)."""

from __future__ import annotations

import html
from collections.abc import AsyncIterator
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from contracts.hookspecs import hookimpl
from contracts.workflow.types import StartRequest
from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.plugins import PluginHost
from core.settings import Settings
from services.workflow.bootstrap import WorkflowService, service_of
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.apps import client_for
from tests.e2e.api.conftest import ALL_WORKFLOW
from tests.integration.workflow.test_nested_errors import (
    FIX,
    OFFICER,
    NestPlugin,
    _child,
)

WRAPPED: dict[str, Any] = {
    "format": 1,
    "key": "nest.wrapped",
    "name": "Envolvido",
    "protocol_prefix": "ENV",
    "nodes": [
        {"id": "begin", "type": "start", "next": "outer"},
        {
            "id": "outer",
            "type": "subprocess",
            "nodes": [
                {"id": "b0", "type": "start", "next": "c"},
                {"id": "c", "type": "call", "name": "Consulta", "definition": "nest.called"}
                | {"next": "e0"},
                {"id": "e0", "type": "end"},
            ],
            "errors": [{"code": "refused", "next": "fix"}],
            "next": "done",
        },
        {"id": "fix", **FIX},
        {"id": "done", "type": "end"},
    ],
}
"""A call inside a sub-process: the called process's error passes the call on to ``outer``."""


class PagesPlugin(NestPlugin):
    @hookimpl
    def tramita_register_queues(self, registry: Any) -> None:
        NestPlugin.tramita_register_queues(self, registry)
        registry.add("nest.wrapped.operators", "Operators")

    @hookimpl
    def tramita_register_workflows(self, registry: Any) -> None:
        NestPlugin.tramita_register_workflows(self, registry)
        registry.add(WRAPPED)


@pytest.fixture
async def client(
    database_url: str, clock: FixedClock
) -> AsyncIterator[tuple[WorkflowService, AsyncTestClient[Any]]]:
    host = PluginHost()
    host.discover(groups=["tramita.services"])
    host.register(PagesPlugin(), "passed_on_pages_test")
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
        async with client_for(platform) as http:
            http.cookies.set(SESSION_COOKIE, str(session.value))
            yield service_of(platform), http
    finally:
        await platform.close()


async def _failed_child(service: WorkflowService, key: str, node_id: str) -> str:
    """Run ``key`` to its end; the id of the failed child its ``node_id`` started."""
    view = await service.engine.start(StartRequest(definition_key=key, actor=OFFICER))
    await service.delivery.drain()
    assert (await service.engine.status(view.id)).status == "completed"
    child = await _child(service, view.id, node_id)
    assert child.status == "failed"
    return child.id


async def _why(http: AsyncTestClient[Any], instance_id: str, language: str) -> str:
    page = await http.get(
        f"/cms/workflow/instances/{instance_id}", headers={"accept-language": language}
    )
    assert page.status_code == 200, page.text
    start = page.text.index('<dd id="failure-reason">') + len('<dd id="failure-reason">')
    return html.unescape(page.text[start : page.text.index("</dd>", start)])


async def test_an_error_a_subprocess_passed_on_is_told_as_the_subprocess_s(
    client: tuple[WorkflowService, AsyncTestClient[Any]],
) -> None:
    service, http = client
    middle = await _failed_child(service, "nest.caught", "s1")  # fails at its sub-process s2
    assert await _why(http, middle, "pt-BR") == (
        "O subprocesso Conferir (s2) terminou com o erro de negócio «refused» e nenhum fluxo de"
        " erro desta etapa o trata; o erro segue para o processo que iniciou este."
    )
    assert await _why(http, middle, "en") == (
        "The sub-process Conferir (s2) ended with the business error «refused» and no error"
        " route of this step takes it; the error passes on to the process that started this one."
    )
    inner = await _child(service, middle, "s2")  # where the step itself raised it
    assert "Uma etapa automática terminou com um erro de negócio" in await _why(
        http, inner.id, "pt-BR"
    )


async def test_an_error_a_called_process_passed_on_is_told_as_the_call_s(
    client: tuple[WorkflowService, AsyncTestClient[Any]],
) -> None:
    service, http = client
    middle = await _failed_child(service, "nest.wrapped", "outer")  # fails at its call c
    assert await _why(http, middle, "pt-BR") == (
        "O processo chamado pela etapa Consulta (c) terminou com o erro de negócio «refused» e"
        " nenhum fluxo de erro desta etapa o trata; o erro segue para o processo que iniciou"
        " este."
    )
    assert (await _why(http, middle, "en")).startswith(
        "The process called by step Consulta (c) ended with the business error «refused»"
    )
