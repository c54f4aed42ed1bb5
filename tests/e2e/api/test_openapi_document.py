"""What the served OpenAPI document promises, checked against the application that serves it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.api.conftest import Api

PROBLEM = {"$ref": "#/components/schemas/Problem"}


async def _document(api: Api) -> dict[str, Any]:
    response = await api.client.get("/schema/openapi.json")
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


async def test_every_guarded_route_documents_its_problems_as_problem_json(api: Api) -> None:
    document = await _document(api)
    for path, item in document["paths"].items():
        if not path.startswith("/api/v1"):
            continue
        for method, operation in item.items():
            responses = operation["responses"]
            for status in ("400", "401", "403", "404", "422"):
                content = responses[status]["content"]
                assert content == {"application/problem+json": {"schema": PROBLEM}}, (
                    method,
                    path,
                    status,
                )
            assert operation["security"] == [{"bearer": []}], (method, path)
            if method == "post":
                assert {"409", "413"} <= responses.keys(), (method, path)
                assert any(p["name"] == "Idempotency-Key" for p in operation["parameters"])


async def test_a_problem_the_server_gives_matches_the_documented_schema(api: Api) -> None:
    document = await _document(api)
    problem = document["components"]["schemas"]["Problem"]
    unknown = "019cae6b-6600-7000-8000-00000000000e"
    response = await api.client.get(f"/api/v1/instances/{unknown}", headers=api.auth())
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert set(problem["required"]) <= body.keys()
    for name, schema in problem["properties"].items():
        if name in body and schema.get("type") == "string":
            assert isinstance(body[name], str), name
    assert body["status"] == 404


async def test_bodies_that_refuse_unknown_members_say_so(api: Api) -> None:
    schemas = (await _document(api))["components"]["schemas"]
    assert schemas["StartBody"]["additionalProperties"] is False
    response = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "purchase.approval", "surprise": 1},
        headers=api.auth(),
    )
    assert response.status_code == 400


async def test_exactly_one_of_rules_are_stated_as_one_of(api: Api) -> None:
    schemas = (await _document(api))["components"]["schemas"]
    branches = schemas["MessageBody"]["oneOf"]
    assert [b["required"] for b in branches] == [["business_key"], ["protocol"]]
    assert {b["required"][0] for b in schemas["ForwardBody"]["oneOf"]} == {"to_user", "to_queue"}


async def test_bounds_inside_optional_fields_are_documented(api: Api) -> None:
    schemas = (await _document(api))["components"]["schemas"]
    version = schemas["RepairBody"]["properties"]["expected_version"]
    assert {"type": "integer", "minimum": 0, "maximum": 2**31 - 1} in version["anyOf"]
    keyed = schemas["MigrationBody"]["properties"]["expected_versions"]["anyOf"][0]
    assert keyed["propertyNames"] == {"type": "string", "format": "uuid"}


async def test_only_a_reassignment_takes_a_target_in_bulk(api: Api) -> None:
    schemas = (await _document(api))["components"]["schemas"]
    assert "to_user" not in schemas["BulkClaim"]["properties"]
    response = await api.client.post(
        "/api/v1/tasks/bulk",
        json={
            "action": "claim",
            "task_ids": ["019cae6b-6600-7000-8000-00000000000e"],
            "to_user": "x",
        },
        headers=api.auth(),
    )
    assert response.status_code == 400


async def test_the_bpmn_upload_documents_its_xml_body(api: Api) -> None:
    operation = (await _document(api))["paths"]["/api/v1/workflows/bpmn"]["post"]
    assert operation["requestBody"]["required"] is True
    assert "application/bpmn+xml" in operation["requestBody"]["content"]


async def test_no_documentation_page_loads_third_party_scripts(api: Api) -> None:
    for path in ("/schema", "/schema/swagger", "/schema/redoc", "/schema/elements"):
        response = await api.client.get(path)
        assert "<script" not in response.text, path


def _methods(allow: str) -> set[str]:
    return {m.strip() for m in allow.split(",")}


async def test_options_and_405_list_every_method_of_the_path_in_allow(api: Api) -> None:
    options = await api.client.options("/api/v1/instances")
    assert _methods(options.headers["allow"]) == {"GET", "OPTIONS", "POST"}
    refused = await api.client.delete("/api/v1/instances", headers=api.auth())
    assert refused.status_code == 405
    assert _methods(refused.headers["allow"]) == {"GET", "OPTIONS", "POST"}
    assert refused.headers["content-type"].startswith("application/problem+json")


@pytest.mark.parametrize(
    ("path", "name"), [("/api/v1/instances", "started_to"), ("/api/v1/tasks", "due_to")]
)
async def test_a_number_is_not_a_date_time_query_parameter(api: Api, path: str, name: str) -> None:
    refused = await api.client.get(path, params={name: "0.5"}, headers=api.auth())
    assert refused.status_code == 400
    assert refused.json()["errors"][0]["path"] == f"query.{name}"
    accepted = await api.client.get(path, params={name: "2026-03-02T12:00:00Z"}, headers=api.auth())
    assert accepted.status_code == 200
