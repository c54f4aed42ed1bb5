"""Helpers for the human-work route tests: open approval tasks and user ids from tokens."""

from __future__ import annotations

from typing import Any

from core.auth import verify_token
from tests.e2e.api.conftest import Api, start_purchase

UNKNOWN = "019cae6b-6600-7000-8000-0000000000ff"


async def open_tasks(api: Api, count: int) -> list[dict[str, Any]]:
    """``count`` ready approval tasks in ``purchase.managers`` (one per large purchase)."""
    tasks = []
    for _ in range(count):
        instance = await start_purchase(api, 20_000)
        response = await api.client.get(
            f"/api/v1/instances/{instance['id']}/tasks", headers=api.auth()
        )
        (task,) = response.json()
        tasks.append(task)
    return tasks


def user_id(api: Api, user: str) -> str:
    return verify_token(
        api.platform.settings.secret_key, api.tokens[user], now=api.platform.clock.now()
    )


async def claim(api: Api, task_id: str, user: str = "manager") -> None:
    response = await api.client.post(f"/api/v1/tasks/{task_id}/claim", headers=api.auth(user))
    assert response.status_code == 200, response.text
