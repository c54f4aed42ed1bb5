"""Definitions and versions over HTTP: list, read, publish and export in JSON and BPMN."""

from __future__ import annotations

import copy

from tests.e2e.api.conftest import Api
from tests.e2e.api.esic_like import DEFINITION


async def test_lists_the_published_versions(api: Api) -> None:
    response = await api.client.get("/api/v1/workflows", headers=api.auth("reader"))
    assert response.status_code == 200
    assert {(v["key"], v["version"]) for v in response.json()} == {
        ("purchase.approval", 1),
        ("esic_like.request", 1),
    }


async def test_gets_a_version_with_its_definition(api: Api) -> None:
    response = await api.client.get(
        "/api/v1/workflows/esic_like.request/versions/1", headers=api.auth("reader")
    )
    assert response.status_code == 200
    assert response.json()["definition"]["protocol_prefix"] == "SIC"


async def test_an_unknown_version_is_404(api: Api) -> None:
    response = await api.client.get(
        "/api/v1/workflows/esic_like.request/versions/9", headers=api.auth("reader")
    )
    assert response.status_code == 404
    assert response.json()["version"] == 9


async def test_publishing_a_changed_definition_makes_version_2(api: Api) -> None:
    changed = copy.deepcopy(DEFINITION)
    changed["name"] = "Pedido (v2)"
    response = await api.client.post("/api/v1/workflows", json=changed, headers=api.auth())
    assert response.status_code == 201
    assert (response.json()["version"], response.json()["created"]) == (2, True)


async def test_publishing_an_invalid_definition_is_422_with_field_errors(api: Api) -> None:
    broken = {**DEFINITION, "protocol_prefix": "lowercase"}
    response = await api.client.post("/api/v1/workflows", json=broken, headers=api.auth())
    assert response.status_code == 422
    assert response.json()["errors"]


def _with_unknown_queue() -> dict[str, object]:
    broken = copy.deepcopy(DEFINITION)
    broken["nodes"][1]["queue"] = "esic_like.nowhere"
    return broken


async def test_a_definition_error_reads_in_portuguese_and_names_the_node(api: Api) -> None:
    response = await api.client.post(
        "/api/v1/workflows", json=_with_unknown_queue(), headers=api.auth()
    )
    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert error == {
        "path": "nodes[1] (triagem_setor_juridico).queue",
        "code": "unknown_queue",
        "message": "O nó `triagem_setor_juridico` atribui sua tarefa à fila "
        "`esic_like.nowhere`, que não está registrada.",
    }


async def test_a_definition_error_reads_in_english_on_request(api: Api) -> None:
    response = await api.client.post(
        "/api/v1/workflows",
        json=_with_unknown_queue(),
        headers={**api.auth(), "Accept-Language": "en"},
    )
    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert (error["code"], error["message"]) == (
        "unknown_queue",
        "Node `triagem_setor_juridico` assigns its task to queue `esic_like.nowhere`, "
        "which is not registered.",
    )


async def test_publishing_needs_the_publish_permission(api: Api) -> None:
    response = await api.client.post(
        "/api/v1/workflows", json=DEFINITION, headers=api.auth("reader")
    )
    assert response.status_code == 403


async def test_a_version_exported_as_bpmn_publishes_back(api: Api) -> None:
    exported = await api.client.get(
        "/api/v1/workflows/esic_like.request/versions/1/bpmn", headers=api.auth("reader")
    )
    assert exported.status_code == 200
    assert exported.headers["content-type"].startswith("application/bpmn+xml")
    published = await api.client.post(
        "/api/v1/workflows/bpmn",
        content=exported.content,
        headers=api.auth(**{"Content-Type": "application/bpmn+xml"}),
    )
    assert published.status_code == 201, published.text
    assert published.json()["key"] == "esic_like.request"


async def test_publishing_malformed_bpmn_is_a_client_error(api: Api) -> None:
    response = await api.client.post(
        "/api/v1/workflows/bpmn", content=b"<not-bpmn", headers=api.auth()
    )
    assert response.status_code in (400, 422)
    assert "Traceback" not in response.text


SCRIPT_BPMN = b"""<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="x">
  <process id="p">
    <startEvent id="start"/>
    <scriptTask id="Script_calcula"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="Script_calcula"/>
  </process>
</definitions>
"""


async def _publish_script(api: Api, language: str) -> dict[str, object]:
    response = await api.client.post(
        "/api/v1/workflows/bpmn",
        content=SCRIPT_BPMN,
        headers=api.auth(**{"Content-Type": "application/bpmn+xml", "Accept-Language": language}),
    )
    assert response.status_code == 422, response.text
    [error] = response.json()["errors"]
    return dict(error)


async def test_a_bpmn_import_error_reads_in_portuguese_naming_the_element(api: Api) -> None:
    error = await _publish_script(api, "pt-BR")
    assert error == {
        "path": 'bpmn:scriptTask id="Script_calcula" line 5',
        "code": "bpmn.unsupported.element",
        "message": "bpmn:scriptTask está fora do subconjunto de BPMN que o Tramita importa "
        "(scripts executam código, e o Tramita nunca executa código de um diagrama)",
    }


async def test_a_bpmn_import_error_reads_in_english_on_request(api: Api) -> None:
    error = await _publish_script(api, "en")
    assert (error["code"], error["message"]) == (
        "bpmn.unsupported.element",
        "bpmn:scriptTask is outside the BPMN subset Tramita imports "
        "(scripts run code, and Tramita never runs code from a diagram)",
    )
