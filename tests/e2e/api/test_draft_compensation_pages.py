"""A saga set up in the draft editor over HTTP, without a browser (both backends; issue #24):
a service step's "Compensação" (a registered handler, as the handler field offers them) and an
end's "Desfazer as etapas concluídas" checkbox (``compensate``) are saved through the properties
form, published into the definition, and shown again in a draft copied from it. Running the
saga is the engine tests' job."""

from __future__ import annotations

from tests.e2e.api.conftest import Api
from tests.e2e.api.test_draft_inclusive_pages import BASE_VERSION, KEY, _copied_draft

RESERVE = {
    "name": "Reserva",
    "handler": "stock.reserve",
    "queue": "",
    "pending_queue": "purchase.approval.operators",
}
COMPENSATING = {
    **BASE_VERSION,
    "nodes": [
        {"id": "start", "type": "start", "next": "reserve"},
        {
            "id": "reserve",
            "type": "service_task",
            "handler": "stock.reserve",
            "compensation": "stock.release",
            "failure": {"pending_queue": "purchase.approval.operators"},
            "next": "end",
        },
        {"id": "end", "type": "end", "result": "rejected", "compensate": True},
    ],
}


async def test_compensation_and_a_compensation_end_are_set_and_published(api: Api) -> None:
    editor = await _copied_draft(api)
    await editor.add("reserve", "service_task", after="start")
    refused = await editor.post("/nodes/end/properties", name="", compensation="stock.release")
    assert refused.status_code == 422
    assert "O nó `end` é do tipo end, que não faz trabalho que possa ser compensado." in (
        refused.text
    )
    refused = await editor.post("/nodes/reserve/properties", **RESERVE, compensation="Estorno")
    assert refused.status_code == 422
    assert 'id="f-reserve-properties-compensation" name="compensation" value="Estorno"' in (
        refused.text
    )
    await editor.ok("/nodes/reserve/properties", **RESERVE, compensation="stock.release")
    await editor.ok("/nodes/end/properties", name="", result="rejected", compensate="true")
    await editor.connect("start", "reserve")
    await editor.connect("reserve", "end")

    published = await editor.ok("/publish")
    assert published.startswith(f"/cms/workflow/definitions/{KEY}/versions/2")
    stored = await api.client.get(f"/api/v1/workflows/{KEY}/versions/2", headers=api.auth("admin"))
    assert stored.status_code == 200, stored.text
    nodes = {n["id"]: n for n in stored.json()["definition"]["nodes"]}
    assert nodes["reserve"]["compensation"] == "stock.release"
    assert (nodes["end"]["result"], nodes["end"]["compensate"]) == ("rejected", True)


async def test_a_draft_copied_from_a_saga_shows_its_compensations(api: Api) -> None:
    editor = await _copied_draft(api, COMPENSATING)
    page = await editor.page()
    assert (
        '<label for="f-reserve-properties-compensation">Compensação</label>\n  <input'
        ' type="text" id="f-reserve-properties-compensation" name="compensation"'
        ' value="stock.release" list="handlers"'
    ) in page
    assert (
        '<input type="checkbox" id="f-end-properties-compensate" name="compensate" value="true"'
        " checked"
    ) in page
    assert "Desfazer as etapas concluídas (compensação)" in page
    await editor.ok("/nodes/reserve/properties", **RESERVE, compensation="stock.release")
    await editor.ok("/nodes/end/properties", name="", result="rejected")  # unchecked
    kept = await editor.page()
    assert 'value="stock.release" list="handlers"' in kept
    assert 'id="f-end-properties-compensate" name="compensate" value="true" aria' in kept
