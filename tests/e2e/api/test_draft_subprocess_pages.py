"""An embedded sub-process built in the draft editor over HTTP, without a browser (both
backends; issue #24): a designer adds the sub-process, opens it (``?scope=``) and fills its
inner steps with the same forms as the top level, gives it an interrupting deadline, publishes,
and a case runs the inner step as the sub-process's child. An inner problem is refused naming
the step by its path; a draft copied from a version with a sub-process publishes unchanged."""

from __future__ import annotations

from tests.e2e.api.conftest import Api
from tests.e2e.api.test_draft_inclusive_pages import BASE_VERSION, KEY, _copied_draft

INNER = "analise"
EXPECTED = {
    "id": INNER,
    "type": "subprocess",
    "nodes": [
        {"id": "start", "type": "start", "next": "conferir"},
        {
            "id": "conferir",
            "type": "service_task",
            "handler": "purchase.notify",
            "failure": {"pending_queue": "purchase.approval.operators"},
            "next": "end",
        },
        {"id": "end", "type": "end"},
    ],
    "timers": [{"id": "atraso", "duration": "P5D", "interrupting": True, "next": "end"}],
    "next": "end",
}


async def test_a_subprocess_built_in_the_editor_publishes_and_its_child_runs(api: Api) -> None:
    plain = [{"id": "start", "type": "start", "next": "end"}, {"id": "end", "type": "end"}]
    editor = await _copied_draft(api, {**BASE_VERSION, "nodes": plain})
    await editor.ok("/nodes", node_id=INNER, node_type="subprocess", name="", after="start")
    inside = {"scope": INNER}
    await editor.ok("/nodes", node_id="conferir", node_type="service_task", after="start", **inside)
    await editor.ok("/nodes/start/connect", target="conferir", **inside)
    back = await editor.ok("/nodes/conferir/connect", target="end", **inside)
    assert f"scope={INNER}" in back
    await editor.ok("/nodes/start/connect", target=INNER)
    await editor.ok("/nodes/analise/connect", target="end")
    refused = await editor.post("/nodes/analise/add-timer", timer_id="atraso", duration="P5D")
    assert refused.status_code == 422
    assert "Escolha a etapa de destino." in refused.text
    timer = {"timer_id": "atraso", "duration": "P5D", "interrupting": "true", "target": "end"}
    await editor.ok("/nodes/analise/add-timer", **timer)

    refused = await editor.post("/publish")
    assert refused.status_code == 422
    assert "Etapa analise \u203a conferir:" in refused.text
    page = await editor.page(f"?scope={INNER}")
    assert "Etapas do subprocesso analise (3)" in page
    assert '<input type="hidden" name="scope" value="analise">' in page
    await editor.ok(
        "/nodes/conferir/properties",
        name="",
        handler="purchase.notify",
        queue="",
        pending_queue="purchase.approval.operators",
        **inside,
    )
    published = await editor.ok("/publish")
    assert published.startswith(f"/cms/workflow/definitions/{KEY}/versions/2")
    stored = await api.client.get(f"/api/v1/workflows/{KEY}/versions/2", headers=api.auth("admin"))
    nodes = {n["id"]: n for n in stored.json()["definition"]["nodes"]}
    inner = nodes[INNER]
    timer = inner["timers"][0]
    assert (timer["id"], timer["duration"], timer["interrupting"]) == ("atraso", "P5D", True)
    assert (timer["next"], inner["next"]) == ("end", "end")
    steps = [(n["id"], n["type"], n.get("handler"), n.get("next")) for n in inner["nodes"]]
    assert steps == [
        ("start", "start", None, "conferir"),
        ("conferir", "service_task", "purchase.notify", "end"),
        ("end", "end", None, None),
    ]

    started = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": KEY, "context": {}},
        headers=api.auth("admin"),
    )
    assert started.status_code == 201, started.text
    await api.drain()
    instance = started.json()["id"]
    assert (await api.service.engine.status(instance)).status == "completed"
    shown = await api.client.get(f"/api/v1/instances/{instance}", headers=api.auth("admin"))
    children = shown.json()["children"]
    assert [c["definition_key"] for c in children] == [f"{KEY}.{INNER}"]


async def test_a_draft_copied_from_a_subprocess_publishes_unchanged(api: Api) -> None:
    version = {
        **BASE_VERSION,
        "nodes": [
            {"id": "start", "type": "start", "next": INNER},
            {**EXPECTED, "errors": [{"code": "*", "next": "end", "store": "falha"}]},
            {"id": "end", "type": "end"},
        ],
    }
    editor = await _copied_draft(api, version)
    page = await editor.page(f"?scope={INNER}")
    assert 'id="node-conferir"' in page
    assert 'value="purchase.notify" list="handlers"' in page
    top = await editor.page()
    assert "Abrir o subprocesso analise (3 etapas)" in top
    published = await editor.ok("/publish")
    assert published.endswith("/versions/1?msg=unchanged")
