"""Instances over HTTP: start, read, history, cancel, signal, correlate, search."""

from __future__ import annotations

from tests.e2e.api.conftest import Api, start_purchase
from tests.e2e.api.esic_like import PERSONAL

UNKNOWN = "019cae6b-6600-7000-8000-0000000000ff"


async def start_esic(api: Api, **extra: object) -> dict[str, object]:
    response = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "esic_like.request", "context": PERSONAL, **extra},
        headers=api.auth("requester"),
    )
    assert response.status_code == 201, response.text
    await api.drain()
    body: dict[str, object] = response.json()
    return body


async def test_starting_returns_the_instance_with_its_protocol(api: Api) -> None:
    body = await start_purchase(api, 500)
    assert body["protocol"] == "PUR-2026-000001"
    assert body["definition_version"] == 1


async def test_a_malformed_start_body_is_400_with_field_errors(api: Api) -> None:
    response = await api.client.post(
        "/api/v1/instances", json={"definition_key": 12}, headers=api.auth("requester")
    )
    assert response.status_code == 400
    assert response.json()["errors"]


async def test_starting_an_unknown_workflow_is_404(api: Api) -> None:
    response = await api.client.post(
        "/api/v1/instances", json={"definition_key": "nope.nothing"}, headers=api.auth()
    )
    assert response.status_code == 404


async def test_an_unknown_instance_is_404(api: Api) -> None:
    response = await api.client.get(f"/api/v1/instances/{UNKNOWN}", headers=api.auth())
    assert response.status_code == 404
    assert response.json()["instance_id"] == UNKNOWN


async def test_a_malformed_instance_id_is_400_not_a_server_error(api: Api) -> None:
    response = await api.client.get("/api/v1/instances/not-a-uuid", headers=api.auth())
    assert response.status_code in (400, 404)


async def test_the_history_lists_the_transitions_in_order(api: Api) -> None:
    body = await start_purchase(api, 500)
    response = await api.client.get(f"/api/v1/instances/{body['id']}/history", headers=api.auth())
    assert response.status_code == 200
    seqs = [e["seq"] for e in response.json()]
    assert seqs == sorted(seqs) and len(seqs) > 3


async def test_cancelling_with_a_reason_cancels(api: Api) -> None:
    body = await start_esic(api)
    response = await api.client.post(  # nothing completed to compensate: cancelled at once
        f"/api/v1/instances/{body['id']}/cancel",
        json={"reason": "duplicado", "compensate": True},
        headers=api.auth(),
    )
    assert response.status_code == 200
    assert response.json()["status"] == "cancelled"


async def test_cancelling_twice_is_409(api: Api) -> None:
    body = await start_esic(api)
    url = f"/api/v1/instances/{body['id']}/cancel"
    await api.client.post(url, json={"reason": "duplicado"}, headers=api.auth())
    response = await api.client.post(url, json={"reason": "de novo"}, headers=api.auth())
    assert response.status_code == 409


async def test_a_blank_cancellation_reason_is_422(api: Api) -> None:
    body = await start_esic(api)
    response = await api.client.post(
        f"/api/v1/instances/{body['id']}/cancel", json={"reason": "   "}, headers=api.auth()
    )
    assert response.status_code == 422


async def test_a_signal_to_the_waiting_node_moves_the_instance_on(api: Api) -> None:
    body = await start_esic(api)
    response = await api.client.post(
        f"/api/v1/instances/{body['id']}/signals",
        json={"name": "triagem_setor_juridico", "payload": {"resposta": "ok"}},
        headers=api.auth(),
    )
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "completed"


async def test_a_message_is_correlated_by_business_key(api: Api) -> None:
    body = await start_esic(api, business_key="pedido-77")
    response = await api.client.post(
        "/api/v1/messages",
        json={"name": "triagem_setor_juridico", "business_key": "pedido-77"},
        headers=api.auth(),
    )
    assert response.status_code == 200, response.text
    assert response.json()["id"] == body["id"]


async def test_a_message_is_correlated_by_protocol_number(api: Api) -> None:
    body = await start_esic(api)
    response = await api.client.post(
        "/api/v1/messages",
        json={"name": "triagem_setor_juridico", "protocol": body["protocol"]},
        headers=api.auth(),
    )
    assert response.json()["id"] == body["id"]


async def test_a_message_for_no_open_instance_is_404(api: Api) -> None:
    response = await api.client.post(
        "/api/v1/messages",
        json={"name": "triagem_setor_juridico", "business_key": "nobody"},
        headers=api.auth(),
    )
    assert response.status_code == 404


async def test_a_message_matching_two_open_instances_is_409(api: Api) -> None:
    await start_esic(api, business_key="twice")
    await start_esic(api, business_key="twice")
    response = await api.client.post(
        "/api/v1/messages",
        json={"name": "triagem_setor_juridico", "business_key": "twice"},
        headers=api.auth(),
    )
    assert response.status_code == 409


async def test_a_message_naming_neither_key_nor_protocol_is_400(api: Api) -> None:
    response = await api.client.post(
        "/api/v1/messages", json={"name": "triagem_setor_juridico"}, headers=api.auth()
    )
    assert response.status_code == 400


async def test_search_filters_by_a_searchable_context_field(api: Api) -> None:
    wanted = await start_esic(api)
    await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "esic_like.request", "context": {**PERSONAL, "orgao": "saude"}},
        headers=api.auth("requester"),
    )
    response = await api.client.get(
        "/api/v1/instances",
        params={"definition": "esic_like.request", "field": "orgao:educacao"},
        headers=api.auth("reader"),
    )
    assert response.status_code == 200
    assert [i["id"] for i in response.json()["items"]] == [wanted["id"]]


async def test_search_refuses_a_field_the_definition_does_not_declare_searchable(
    api: Api,
) -> None:
    response = await api.client.get(
        "/api/v1/instances",
        params={"definition": "esic_like.request", "field": "cpf:529.982.247-25"},
        headers=api.auth("reader"),
    )
    assert response.status_code == 422
    assert response.json()["errors"][0]["code"] == "not_searchable"
    assert "529" not in response.text


async def test_search_pages_with_a_keyset_cursor(api: Api) -> None:
    ids = [(await start_esic(api))["id"] for _ in range(3)]
    first = (
        await api.client.get("/api/v1/instances", params={"limit": 2}, headers=api.auth())
    ).json()
    second = (
        await api.client.get(
            "/api/v1/instances", params={"limit": 2, "before": first["next"]}, headers=api.auth()
        )
    ).json()
    assert [i["id"] for i in first["items"] + second["items"]] == ids[::-1]
    assert second["next"] is None


async def test_search_filters_by_status_and_protocol(api: Api) -> None:
    body = await start_purchase(api, 500)
    response = await api.client.get(
        "/api/v1/instances",
        params={"status": "completed", "protocol": body["protocol"]},
        headers=api.auth(),
    )
    assert [i["id"] for i in response.json()["items"]] == [body["id"]]


async def test_a_page_size_over_the_cap_is_400(api: Api) -> None:
    response = await api.client.get("/api/v1/instances", params={"limit": 1000}, headers=api.auth())
    assert response.status_code == 400


async def test_a_context_filter_without_its_definition_is_422(api: Api) -> None:
    response = await api.client.get(
        "/api/v1/instances", params={"field": "valor:10"}, headers=api.auth()
    )
    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/problem+json")


async def test_a_body_over_the_size_limit_is_413(api: Api) -> None:
    huge = {"definition_key": "esic_like.request", "context": {"pedido": "x" * (1024 * 1024)}}
    response = await api.client.post("/api/v1/instances", json=huge, headers=api.auth())
    assert response.status_code == 413


async def test_a_failed_condition_is_explained_in_the_instance(api: Api) -> None:
    definition = {
        "format": 1,
        "key": "route.api",
        "name": "Route",
        "protocol_prefix": "RTA",
        "nodes": [
            {"id": "ask", "type": "start", "produces": ["n"], "next": "route"},
            {
                "id": "route",
                "type": "exclusive",
                "branches": [{"when": "100 / n > 1", "next": "done"}],
                "default": "done",
            },
            {"id": "done", "type": "end"},
        ],
    }
    published = await api.client.post("/api/v1/workflows", json=definition, headers=api.auth())
    assert published.status_code == 201, published.text
    started = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "route.api", "context": {"n": 0}},
        headers=api.auth(),
    )
    assert started.status_code == 201, started.text
    shown = await api.client.get(
        f"/api/v1/instances/{started.json()['id']}", headers=api.auth("reader")
    )
    body = shown.json()
    assert body["status"] == "failed"
    assert body["failure"] == {
        "reason": "condition_error",
        "node_id": "route",
        "cause": "division_by_zero",
        "message": (
            "A condição de um desvio falhou na etapa route: a regra fez uma divisão por zero."
        ),
    }
