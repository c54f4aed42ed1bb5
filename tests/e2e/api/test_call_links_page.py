"""The link between a parent and the child its call activity started, on the staff instance
page and in ``GET /api/v1/instances/{id}`` (issue #24), on both databases: the parent lists the
child ("Processos chamados": protocol linking to it, its definition's name, status, start; in the
API its id, protocol, definition and status) and the child links back ("Chamado pelo processo";
``parent_instance_id``); a secret child is not listed to a person without a grant, not even as a
name."""

from __future__ import annotations

from typing import Any

from contracts.kernel import Actor
from contracts.workflow.types import InstanceView, StartRequest
from services.workflow.handles import handles_of
from services.workflow.runtime.ports.access import Viewer
from services.workflow.runtime.services.calls import child_id
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api
from tests.e2e.api.human_helpers import user_id

PT = {"accept-language": "pt-BR"}
SYSTEM = Actor.system("test")


def _child() -> dict[str, Any]:
    return {
        "format": 1,
        "key": "link.child",
        "name": "Parecer jurídico",
        "protocol_prefix": "PAR",
        "nodes": [
            {"id": "begin", "type": "start", "next": "review"},
            {
                "id": "review",
                "name": "Emitir parecer",
                "type": "user_task",
                "queue": "purchase.managers",
                "next": "done",
            },
            {"id": "done", "type": "end"},
        ],
    }


def _parent() -> dict[str, Any]:
    return {
        "format": 1,
        "key": "link.parent",
        "name": "Pedido",
        "protocol_prefix": "PED",
        "nodes": [
            {"id": "begin", "type": "start", "next": "sub"},
            {"id": "sub", "type": "call", "definition": "link.child", "next": "done"},
            {"id": "done", "type": "end"},
        ],
    }


async def _page(api: Api, instance_id: str) -> str:
    shown = await api.client.get(f"/cms/workflow/instances/{instance_id}", headers=PT)
    assert shown.status_code == 200, shown.text
    return shown.text


async def _parent_and_child(api: Api) -> tuple[InstanceView, InstanceView]:
    engine = api.service.engine
    for flow in (_child(), _parent()):
        published = await api.client.post("/api/v1/workflows", json=flow, headers=api.auth())
        assert published.status_code == 201, published.text
    parent = await engine.start(StartRequest(definition_key="link.parent", actor=SYSTEM))
    (token,) = await engine.tokens(parent.id)
    child = await engine.status(child_id(parent.id, token.id, "sub", token.attempt_group))
    assert child.parent_instance_id == parent.id
    return parent, child


async def _classify(api: Api, instance_id: str, level: str = "secret") -> None:
    await handles_of(api.platform).access.change(
        instance_id,
        level,
        None if level == "public" else "lai.art23",
        viewer=Viewer(tenant="default", user_id="clara", classifier=True),
        actor=Actor(id="clara"),  # granted the case she makes secret; the reader is not
        reason="Investigação em curso",
    )


async def test_parent_and_child_link_each_other_and_a_secret_child_is_not_listed(
    api: Api,
) -> None:
    parent, child = await _parent_and_child(api)

    api.client.cookies.set(
        SESSION_COOKIE, str((await open_session(api.platform, user_id(api, "reader"))).value)
    )
    shown = await _page(api, parent.id)
    assert "Processos chamados" in shown, shown
    assert f'<a href="/cms/workflow/instances/{child.id}">{child.protocol}</a>' in shown
    assert "<td>Parecer jurídico</td><td>Aguardando</td>" in shown
    assert "Chamado pelo processo" not in shown
    shown = await _page(api, child.id)
    assert (
        f'Chamado pelo processo <a href="/cms/workflow/instances/{parent.id}">'
        f"{parent.protocol}</a>" in shown
    ), shown
    assert "Processos chamados" not in shown

    await _classify(api, child.id)
    shown = await _page(api, parent.id)
    assert child.id not in shown and child.protocol not in shown
    assert "Processos chamados" not in shown and "Parecer jurídico" not in shown


async def test_the_api_lists_the_visible_children_and_names_the_parent(api: Api) -> None:
    parent, child = await _parent_and_child(api)
    shown = await api.client.get(f"/api/v1/instances/{parent.id}", headers=api.auth("reader"))
    assert shown.status_code == 200, shown.text
    assert (shown.json()["parent_instance_id"], shown.json()["children"]) == (
        None,
        [
            {
                "id": child.id,
                "protocol": child.protocol,
                "definition_key": "link.child",
                "status": "waiting",
            }
        ],
    )
    shown = await api.client.get(f"/api/v1/instances/{child.id}", headers=api.auth("reader"))
    assert (shown.json()["parent_instance_id"], shown.json()["children"]) == (parent.id, [])

    await _classify(api, child.id)
    shown = await api.client.get(f"/api/v1/instances/{parent.id}", headers=api.auth("reader"))
    assert shown.json()["children"] == []
    await _classify(api, child.id, "public")
    await _classify(api, parent.id)
    shown = await api.client.get(f"/api/v1/instances/{child.id}", headers=api.auth("reader"))
    assert shown.json()["parent_instance_id"] is None  # not named, not even by id
