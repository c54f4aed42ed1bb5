"""A call activity and a multi-instance user task built in the draft editor over HTTP, without a
browser (both backends; issue #24): a designer copies a published version, adds a review that
opens one task per item (the "Várias instâncias" fieldset of the properties form) and a step that
calls another published process (its own form: the process from a select of the catalog, the
``chave = expressão`` lines), connects them, validates and publishes. Refused values stay on
their fields with the error in Portuguese. Running both is the engine tests' job."""

from __future__ import annotations

from contracts.kernel import Actor
from tests.e2e.api.conftest import Api
from tests.e2e.api.test_draft_inclusive_pages import KEY, _copied_draft

CHILD = {
    "format": 1,
    "key": "editor.parecer",
    "name": "Parecer",
    "protocol_prefix": "PAR",
    "nodes": [
        {"id": "start", "type": "start", "produces": ["valor"], "next": "end"},
        {"id": "end", "type": "end"},
    ],
}
"""The process the call starts: it takes ``valor`` and completes."""
REVIEW = {"name": "Revisão", "queue": "purchase.managers", "form_key": "", "form_version": ""}


async def test_a_copied_version_gains_a_call_and_a_multi_task_through_the_forms(api: Api) -> None:
    await api.service.engine.publisher.publish(CHILD, actor=Actor(id="designer"))
    editor = await _copied_draft(api)
    page = await editor.page()
    assert '<option value="call">Chamar outro processo</option>' in page
    await editor.add("review", "user_task", after="start")
    await editor.add("ask", "call", after="review")

    refused = await editor.post(
        "/nodes/review/properties", **REVIEW, over="[area, area +", item="", mode="parallel"
    )
    assert refused.status_code == 422
    assert "Várias instâncias (opcional)" in refused.text
    assert "Expressão malformada" in refused.text
    assert '<textarea id="f-review-properties-over"' in refused.text
    assert ">[area, area +</textarea>" in refused.text  # the refused value stays on its field
    refused = await editor.post(
        "/nodes/review/properties", **REVIEW, over="[area, area + 1]", item="", mode="sequential"
    )
    assert refused.status_code == 422
    assert (
        '<p class="error" id="f-review-properties-item-error">Informe o nome com que cada'
        " tarefa recebe seu item.</p>"
    ) in refused.text
    assert 'id="f-review-properties-mode-sequential" name="mode" value="sequential" checked' in (
        refused.text
    )
    await editor.ok(
        "/nodes/review/properties",
        **REVIEW,
        over="[area, area + 1]",
        item="revisor",
        mode="",
        distinct_people="true",
    )

    call = {"version": "", "inputs": "valor = area * 2", "outputs": "parecer = valor"}
    refused = await editor.post("/nodes/ask/call", definition="editor.outro", **call)
    assert refused.status_code == 422
    assert "Nenhum processo publicado tem a chave editor.outro." in refused.text
    assert 'href="#f-ask-call-definition"' in refused.text
    assert '<option value="editor.parecer">editor.parecer</option>' in refused.text
    await editor.ok("/nodes/ask/call", definition="editor.parecer", **call)
    for source, target in (("start", "review"), ("review", "ask"), ("ask", "end")):
        await editor.connect(source, target)

    checked = await editor.page("?check=1")
    assert "Validação: nenhum problema. O rascunho pode ser publicado." in checked
    assert '<option value="editor.parecer" selected>editor.parecer</option>' in checked
    assert (
        'id="f-review-properties-distinct_people" name="distinct_people" value="true" checked'
    ) in checked
    assert "Cada pessoa faz no máximo uma tarefa desta etapa" in checked
    published = await editor.ok("/publish")
    assert published.startswith(f"/cms/workflow/definitions/{KEY}/versions/2")
    stored = await api.client.get(f"/api/v1/workflows/{KEY}/versions/2", headers=api.auth("admin"))
    assert stored.status_code == 200, stored.text
    nodes = {n["id"]: n for n in stored.json()["definition"]["nodes"]}
    multi = {"over": "[area, area + 1]", "item": "revisor", "mode": "parallel"}
    assert nodes["review"]["multi"] == {**multi, "complete_when": None}
    assert (nodes["ask"]["definition"], nodes["ask"]["in"], nodes["ask"]["out"]) == (
        "editor.parecer",
        {"valor": "area * 2"},
        {"parecer": "valor"},
    )
