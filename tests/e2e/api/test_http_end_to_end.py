"""A whole purchase through a real HTTP server, as an outside client: no engine calls."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from tests.e2e.api.conftest import Api
from tests.e2e.api.served import serve
from tests.fakes.purchase import order


async def _until(client: httpx.AsyncClient, url: str, headers: dict[str, str], want: str) -> Any:
    for _ in range(200):
        body = (await client.get(url, headers=headers)).json()
        if body["status"] == want:
            return body
        await asyncio.sleep(0.02)
    raise AssertionError(f"instance stayed {body['status']}")


async def test_a_purchase_completes_with_only_http_calls(api: Api) -> None:
    requester, manager = api.auth("requester"), api.auth("manager")
    async with serve(api) as base, httpx.AsyncClient(base_url=base, timeout=10) as client:
        started = await client.post(
            "/api/v1/instances",
            json={"definition_key": "purchase.approval", "context": order(20_000)},
            headers={**requester, "Idempotency-Key": "order-1"},
        )
        assert started.status_code == 201
        url = f"/api/v1/instances/{started.json()['id']}"
        await _until(client, url, requester, "waiting")
        (task,) = (await client.get(f"{url}/tasks", headers=manager)).json()
        claimed = await client.post(f"/api/v1/tasks/{task['id']}/claim", headers=manager)
        assert claimed.status_code == 200
        completed = await client.post(
            f"/api/v1/tasks/{task['id']}/complete",
            json={"outcome": "approve", "data": {"approval_comment": "ok"}},
            headers={**manager, "Idempotency-Key": "approve-1"},
        )
        assert completed.status_code == 200
        final = await _until(client, url, requester, "completed")
        assert final["context"]["payment_id"] == "payment-1"
