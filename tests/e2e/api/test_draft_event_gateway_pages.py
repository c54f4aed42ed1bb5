"""An event-based gateway built in the draft editor over HTTP, without a browser (both
backends): a designer copies a published version, adds the gateway, the applicant's reply (a
user task) and a ten-day timer through the add form, connects the gateway to both, publishes,
and the race runs: a message delivered by ``POST /api/v1/messages`` wins for one case (its timer
never fires) and the timer wins for the other. A way out that is no event is refused on the
target field in Portuguese, and a gateway with one way out is shown by "Validar rascunho"."""

from __future__ import annotations

from datetime import timedelta

from core.clock import FixedClock
from tests.e2e.api.conftest import Api
from tests.e2e.api.test_draft_inclusive_pages import KEY, Editor, _copied_draft

CONTEXT = {"area": 1, "noise": False}
"""What the copied version's start declares."""


async def _race(editor: Editor) -> None:
    """start → race ⟨reply, wait (P10D)⟩; reply → answered, wait → lapsed; both to the end."""
    await editor.add("race", "event_gateway", after="start")
    await editor.add("reply", "user_task", after="race")
    await editor.ok(
        "/nodes/reply/properties",
        name="Resposta do requerente",
        queue="purchase.managers",
        form_key="",
        form_version="",
    )
    await editor.add("wait", "timer", after="reply")
    await editor.ok("/nodes/wait/properties", name="", duration="P10D", business_days="", until="")
    for after, step in (("wait", "answered"), ("answered", "lapsed")):
        await editor.add(step, "service_task", after=after)
        await editor.service(step)
        await editor.connect(step, "end")
    await editor.connect("start", "race")
    await editor.connect("reply", "answered")
    await editor.connect("wait", "lapsed")
    await editor.connect("race", "reply")


async def _start(api: Api, business_key: str) -> str:
    response = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": KEY, "context": CONTEXT, "business_key": business_key},
        headers=api.auth("admin"),
    )
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


async def _taken(api: Api, instance_id: str) -> list[str]:
    assert (await api.service.engine.status(instance_id)).status == "completed"
    history = await api.service.engine.history(instance_id)
    return [str(h.to_node) for h in history if h.to_node in ("answered", "lapsed")]


async def test_an_event_gateway_built_in_the_editor_publishes_and_races(
    api: Api, clock: FixedClock
) -> None:
    editor = await _copied_draft(api)
    await _race(editor)
    alone = await editor.page("?check=1")
    assert "`next` deve ter pelo menos 2 itens." in alone

    refused = await editor.post("/nodes/race/connect", target="answered")
    assert refused.status_code == 422
    assert (
        "Um gateway de eventos aguarda temporizadores e tarefas de usuário ou manuais que uma"
        " mensagem conclui: answered não é nenhum deles."
    ) in refused.text
    assert 'href="#f-race-connect-target"' in refused.text
    await editor.connect("race", "wait")

    page = await editor.page()
    assert '<option value="event_gateway">Aguardar o primeiro evento</option>' in page
    assert "Cada saída é um evento a aguardar" in page  # the connect form's help
    assert 'aguarda <a href="#node-wait"><code>wait</code></a>' in page
    checked = await editor.page("?check=1")
    assert "Validação: nenhum problema. O rascunho pode ser publicado." in checked
    published = await editor.ok("/publish")
    assert published.startswith(f"/cms/workflow/definitions/{KEY}/versions/2")

    answered, lapsing = await _start(api, "EXG-1"), await _start(api, "EXG-2")
    message = await api.client.post(
        "/api/v1/messages",
        json={"name": "reply", "business_key": "EXG-1", "payload": {}},
        headers=api.auth("admin"),
    )
    assert message.status_code == 200, message.text
    assert message.json()["id"] == answered
    clock.advance(timedelta(days=10))
    assert await api.service.engine.tick() == 1  # EXG-1's timer went with the message's win
    await api.drain()
    assert await _taken(api, answered) == ["answered"]
    assert await _taken(api, lapsing) == ["lapsed"]
