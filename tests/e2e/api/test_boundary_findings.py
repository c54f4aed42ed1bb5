"""Each 500 the outside probe found, now a 400 problem that names the field (SQLite and
PostgreSQL): NUL characters, integers past the columns' range, naive datetimes, deep JSON."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from core.clock import FixedClock
from services.workflow.bootstrap import service_of
from tests.apps import client_for
from tests.e2e.api.conftest import Api, boot_platform, make_users, start_purchase
from tests.e2e.api.human_helpers import claim, open_tasks
from tests.fakes.purchase import PurchasePlugin, order
from tests.integration.migration.helpers import purchase_v1, with_node

PROBLEM = "application/problem+json"
START = "/api/v1/instances"
NUL = "a\x00b"


def assert_names(response: Any, path: str, code: str, status: int = 400) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    errors = response.json()["errors"]
    assert {"path": path, "code": code} in [
        {"path": e["path"], "code": e["code"]} for e in errors
    ], errors


def deep(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


def start_body(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"definition_key": "purchase.approval", "context": order(10)}
    body.update(overrides)
    return body


@pytest.mark.parametrize(
    ("overrides", "path"),
    [
        ({"definition_key": NUL}, "body.definition_key"),
        ({"business_key": NUL}, "body.business_key"),
        ({"subject": {"type": "order", "id": NUL}}, "body.subject.id"),
        (
            {"context": {**order(10), "item": NUL}},
            "body.context.item",
        ),
        ({"context": {**order(10), NUL: 1}}, "body.context.a\\u0000b"),
    ],
)
async def test_a_nul_in_a_start_is_400_naming_the_field(
    api: Api, overrides: dict[str, Any], path: str
) -> None:
    response = await api.client.post(START, json=start_body(**overrides), headers=api.auth())
    assert_names(response, path, "nul_character")


async def test_a_nul_in_a_workflow_key_query_is_400_for_a_reader(api: Api) -> None:
    response = await api.client.get(
        "/api/v1/workflows", params={"key": NUL}, headers=api.auth("reader")
    )
    assert_names(response, "query.key", "nul_character")


@pytest.mark.parametrize("suffix", ["", "/bpmn"])
async def test_a_nul_in_a_version_route_key_is_400(api: Api, suffix: str) -> None:
    response = await api.client.get(
        f"/api/v1/workflows/a%00b/versions/1{suffix}", headers=api.auth("reader")
    )
    assert_names(response, "path.key", "nul_character")


async def test_a_nul_in_a_task_outcome_is_400(api: Api) -> None:
    (task,) = await open_tasks(api, 1)
    await claim(api, task["id"])
    response = await api.client.post(
        f"/api/v1/tasks/{task['id']}/complete", json={"outcome": NUL}, headers=api.auth("manager")
    )
    assert_names(response, "body.outcome", "nul_character")


async def test_a_nul_in_a_signal_name_or_a_cancel_reason_is_400(api: Api) -> None:
    instance = await start_purchase(api, 20_000)
    base = f"{START}/{instance['id']}"
    signal = await api.client.post(f"{base}/signals", json={"name": NUL}, headers=api.auth())
    assert_names(signal, "body.name", "nul_character")
    cancel = await api.client.post(f"{base}/cancel", json={"reason": NUL}, headers=api.auth())
    assert_names(cancel, "body.reason", "nul_character")


@pytest.mark.parametrize("field", ["business_key", "protocol"])
async def test_a_nul_in_a_message_key_is_400(api: Api, field: str) -> None:
    response = await api.client.post(
        "/api/v1/messages", json={"name": "answer", field: NUL}, headers=api.auth()
    )
    assert_names(response, f"body.{field}", "nul_character")


@pytest.mark.parametrize("version", [2**31, 2**63, 2**64])
async def test_a_version_past_the_column_is_400(api: Api, version: int) -> None:
    response = await api.client.post(START, json=start_body(version=version), headers=api.auth())
    assert response.status_code == 400, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    assert "version" in response.text


@pytest.mark.parametrize("number", [2**31, 2**63, 2**64])
async def test_a_version_number_past_the_column_in_a_path_is_400(api: Api, number: int) -> None:
    response = await api.client.get(
        f"/api/v1/workflows/purchase.approval/versions/{number}", headers=api.auth("reader")
    )
    assert response.status_code == 400, response.text
    assert response.headers["content-type"].startswith(PROBLEM)


async def test_a_context_integer_past_64_bits_is_400(api: Api) -> None:
    body = start_body(context={**order(10), "value": 2**64})
    response = await api.client.post(START, json=body, headers=api.auth())
    assert_names(response, "body.context.value", "integer_out_of_range")


@pytest.mark.parametrize("name", ["started_from", "started_to"])
async def test_a_search_date_without_a_time_zone_is_400(api: Api, name: str) -> None:
    response = await api.client.get(
        START, params={name: "2026-03-02T10:00:00"}, headers=api.auth("reader")
    )
    assert_names(response, f"query.{name}", "naive_datetime")


async def test_a_search_date_with_a_time_zone_still_filters(api: Api) -> None:
    await start_purchase(api, 10)
    response = await api.client.get(
        START, params={"started_from": "2026-03-02T08:00:00-03:00"}, headers=api.auth("reader")
    )
    assert response.status_code == 200, response.text
    assert len(response.json()["items"]) == 1


async def test_json_nested_a_thousand_deep_is_400_on_start_signal_and_validate(api: Api) -> None:
    instance = await start_purchase(api, 20_000)
    headers = api.auth(**{"content-type": "application/json"})
    bodies = {
        START: b'{"definition_key":"purchase.approval","context":{"a":' + deep(1000) + b"}}",
        f"{START}/{instance['id']}/signals": b'{"name":"x","payload":{"a":' + deep(1000) + b"}}",
        "/api/v1/forms/purchase.review/versions/1/validate": b'{"data":{"a":' + deep(1000) + b"}}",
    }
    for url, content in bodies.items():
        response = await api.client.post(url, content=content, headers=headers)
        assert_names(response, "body", "too_deep")


async def test_json_nested_past_the_limit_names_where(api: Api) -> None:
    content = b'{"definition_key":"purchase.approval","context":{"a":' + deep(100) + b"}}"
    response = await api.client.post(
        START, content=content, headers=api.auth(**{"content-type": "application/json"})
    )
    assert response.status_code == 400, response.text
    (error,) = response.json()["errors"]
    assert error["code"] == "too_deep"
    assert error["path"].startswith("body.context.a[0][0]")


@pytest.fixture
async def small_context_api(
    database_url: str, clock: FixedClock, purchase: PurchasePlugin, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Api]:
    """The API with the start-context limit lowered to 4 KiB (the default is 1 MiB)."""
    monkeypatch.setenv("TRAMITA_WF_MAX_CONTEXT_BYTES", "4096")
    platform = await boot_platform(database_url, clock, purchase)
    tokens = await make_users(platform)
    async with client_for(platform) as client:
        yield Api(platform, service_of(platform), client, purchase, tokens)


async def test_a_start_context_over_the_limit_is_413_stating_the_limit(
    small_context_api: Api,
) -> None:
    api = small_context_api
    body = start_body(context={**order(10), "item": "x" * 5000})
    response = await api.client.post(START, json=body, headers=api.auth())
    assert response.status_code == 413, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    problem = response.json()
    assert problem["limit_bytes"] == 4096
    assert problem["size_bytes"] > 4096
    listed = await api.client.get(START, headers=api.auth())
    assert listed.json()["items"] == []


async def test_a_start_context_within_the_limit_starts(small_context_api: Api) -> None:
    api = small_context_api
    response = await api.client.post(START, json=start_body(), headers=api.auth())
    assert response.status_code == 201, response.text


async def test_the_default_start_context_limit_is_one_mebibyte(api: Api) -> None:
    assert api.service.settings.max_context_bytes == 1024 * 1024
    assert api.service.engine.max_context_bytes == 1024 * 1024


async def test_a_migration_row_version_past_the_column_is_400(api: Api) -> None:
    instance = await start_purchase(api, 20_000)
    v2 = with_node(purchase_v1(), "manager_approval", name="Manager sign-off")
    published = await api.client.post("/api/v1/workflows", json=v2, headers=api.auth())
    assert published.status_code == 201, published.text
    body = {
        "from_version": 1,
        "to_version": 2,
        "instance_ids": [instance["id"]],
        "dry_run": False,
        "expected_versions": {instance["id"]: 2**31},
    }
    response = await api.client.post(
        "/api/v1/workflows/purchase.approval/migrations", json=body, headers=api.auth()
    )
    assert response.status_code == 400, response.text
    assert "expected_versions" in response.text
    repair = {"token_id": "t", "to_node": "x", "reason": "r", "expected_version": 2**31}
    response = await api.client.post(
        f"{START}/{instance['id']}/repair", json=repair, headers=api.auth()
    )
    assert response.status_code == 400, response.text
    assert "expected_version" in response.text


@pytest.mark.parametrize("nul", [b"\x00", b"&#0;", b"&#x0;"])
async def test_a_bpmn_upload_holding_a_nul_is_refused_without_a_server_error(
    api: Api, nul: bytes
) -> None:
    xml = (
        b'<?xml version="1.0"?><definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL">'
        b'<process id="p' + nul + b'"><startEvent id="s"/></process></definitions>'
    )
    response = await api.client.post(
        "/api/v1/workflows/bpmn",
        content=xml,
        headers=api.auth(**{"content-type": "application/bpmn+xml"}),
    )
    assert 400 <= response.status_code < 500, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
