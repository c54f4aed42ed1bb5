"""An inclusive (OR) gateway built in the draft editor over HTTP, without a browser (both
backends): a designer copies a published version, adds the fork and the join through the add
form, gives two flows a condition and marks a third as the default path through the connect
form, publishes, and the cases started on the new version take every true branch (the default
alone when none is). A bad condition and a missing join are shown by "Validar rascunho" in
Portuguese; a malformed condition or a default with a condition is refused on its field."""

from __future__ import annotations

import re
from typing import Any

from contracts.kernel import Actor
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api
from tests.e2e.api.human_helpers import user_id

DRAFTS = "/cms/workflow/drafts"
KEY = "editor.licenca"
BASE_VERSION = {
    "format": 1,
    "key": KEY,
    "name": "Licença",
    "protocol_prefix": "LIC",
    "nodes": [
        {"id": "start", "type": "start", "produces": ["area", "noise"], "next": "end"},
        {"id": "end", "type": "end"},
    ],
}
"""What the designer copies: the data a case starts with, and nothing else yet."""


class Editor:
    """One signed-in designer editing one draft through the editor's form posts."""

    def __init__(self, api: Api, headers: dict[str, str], draft: str) -> None:
        self.api, self.headers, self.base = api, headers, f"{DRAFTS}/{draft}"

    async def page(self, query: str = "") -> str:
        response = await self.api.client.get(f"{self.base}{query}", headers=self.headers)
        assert response.status_code == 200, response.text[:2000]
        return response.text

    async def post(self, path: str, **data: str) -> Any:
        found = re.search(r'name="row_version" value="(\d+)"', await self.page())
        assert found is not None
        return await self.api.client.post(
            f"{self.base}{path}",
            data={**data, "row_version": found.group(1)},
            headers=self.headers,
            follow_redirects=False,
        )

    async def ok(self, path: str, **data: str) -> str:
        response = await self.post(path, **data)
        assert response.status_code == 303, response.text[:3000]
        return str(response.headers["location"])

    async def add(self, node_id: str, node_type: str, after: str) -> None:
        await self.ok("/nodes", node_id=node_id, node_type=node_type, name="", after=after)

    async def service(self, node_id: str) -> None:
        await self.ok(
            f"/nodes/{node_id}/properties",
            name="",
            handler="purchase.notify",
            queue="",
            pending_queue="purchase.approval.operators",
        )

    async def connect(self, source: str, target: str, **fields: str) -> str:
        return await self.ok(f"/nodes/{source}/connect", target=target, **fields)


async def _copied_draft(api: Api, version: dict[str, Any] = BASE_VERSION) -> Editor:
    """A draft copied from ``version``, published first as version 1 of its key."""
    await api.service.engine.publisher.publish(version, actor=Actor(id="designer"))
    session = await open_session(api.platform, user_id(api, "admin"))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    response = await api.client.get(f"{DRAFTS}/new")
    assert response.status_code == 200, response.text
    headers = {"x-csrftoken": api.client.cookies["tramita_csrf"], "accept-language": "pt-BR"}
    created = await api.client.post(
        f"{DRAFTS}/from-version",
        data={"version": f"{version['key']}@1"},
        headers=headers,
        follow_redirects=False,
    )
    assert created.status_code == 303, created.text
    draft = str(created.headers["location"]).split("?")[0].rsplit("/", 1)[-1]
    return Editor(api, headers, draft)


async def _fork(editor: Editor) -> None:
    """start → split ⟨area > 100 → urban, noise → environment⟩, default → archive."""
    await editor.add("split", "inclusive", after="start")
    for after, branch in (("split", "urban"), ("urban", "environment"), ("environment", "archive")):
        await editor.add(branch, "service_task", after=after)
        await editor.service(branch)
    await editor.connect("start", "split")
    await editor.connect("split", "urban", condition="area > 100")
    await editor.connect("split", "environment", condition="noise")
    await editor.connect("split", "archive", default="true")


async def _start(api: Api, **context: Any) -> list[str]:
    """Where the fork sent a new case, once everything it could run has run; the steps of those
    branches ran and the join fired once."""
    response = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": KEY, "context": context},
        headers=api.auth("admin"),
    )
    assert response.status_code == 201, response.text
    await api.drain()
    instance = response.json()["id"]
    assert (await api.service.engine.status(instance)).status == "completed"
    moves = [(h.event, h.from_node, h.to_node) for h in await api.service.engine.history(instance)]
    taken = [str(to) for _, source, to in moves if source == "split"]
    ran = [str(source) for event, source, _ in moves if event == "transition.step_succeeded"]
    assert sorted(ran) == sorted(taken)
    assert [to for _, source, to in moves if source == "join"] == ["end"]
    return taken


async def test_an_inclusive_gateway_built_in_the_editor_publishes_and_runs(api: Api) -> None:
    editor = await _copied_draft(api)
    await _fork(editor)
    await editor.add("join", "inclusive", after="archive")
    for branch in ("urban", "environment", "archive"):
        await editor.connect(branch, "join")
    replaced = await editor.connect("join", "end")
    assert "msg=connect" in replaced

    page = await editor.page()
    assert '<option value="inclusive">Decisão inclusiva (um ou mais caminhos)</option>' in page
    assert (
        '<input type="checkbox" id="f-split-connect-default" name="default" value="true">'
        ' <label for="f-split-connect-default">Caminho padrão: seguido só quando nenhuma'
        " condição é verdadeira</label>"
    ) in page
    assert 'id="f-split-condition-1-when"' in page  # each condition editable in place
    assert "caso contrário para" in page  # the default path, read out
    checked = await editor.page("?check=1")
    assert "Validação: nenhum problema. O rascunho pode ser publicado." in checked

    published = await editor.ok("/publish")
    assert published.startswith(f"/cms/workflow/definitions/{KEY}/versions/2")

    assert await _start(api, area=250, noise=True) == ["urban", "environment"]
    assert await _start(api, area=250, noise=False) == ["urban"]
    assert await _start(api, area=10, noise=False) == ["archive"]


async def test_a_bad_condition_and_a_missing_join_are_shown_in_portuguese(api: Api) -> None:
    editor = await _copied_draft(api)
    await _fork(editor)
    await editor.ok("/nodes/split/condition", index="0", when="zoneamento > 100")
    for branch in ("urban", "environment", "archive"):
        await editor.connect(branch, "end")

    checked = await editor.page("?check=1")

    assert "A expressão `zoneamento &gt; 100` do nó `split` não compila" in checked
    assert "Os ramos da bifurcação `split` nunca se encontram numa junção." in checked
    assert '<a href="#node-split">Etapa split:' in checked
    refused = await editor.post("/publish")
    assert refused.status_code == 422
    assert "Não publicado" in refused.text


async def test_a_malformed_condition_or_a_conditioned_default_is_refused_on_its_field(
    api: Api,
) -> None:
    editor = await _copied_draft(api)
    await editor.add("split", "inclusive", after="start")

    malformed = await editor.post("/nodes/split/connect", target="end", condition="area >")
    assert malformed.status_code == 422
    assert "Expressão malformada" in malformed.text
    assert 'href="#f-split-connect-condition"' in malformed.text

    both = await editor.post(
        "/nodes/split/connect", target="end", condition="area > 1", default="true"
    )
    assert both.status_code == 422
    assert "O caminho padrão não tem condição: deixe a condição vazia." in both.text
    assert re.search(r'id="f-split-connect-default"[^>]*checked[^>]*aria-invalid="true"', both.text)
    assert "Caminho padrão: O caminho padrão não tem condição" in both.text  # the summary link
