"""Helpers shared by the migration tests: actors, definition variants, waiting instances."""

from __future__ import annotations

import json
from typing import Any

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from services.workflow.bootstrap import WorkflowService
from tests.fakes.purchase import EXAMPLES, order

OPERATOR = Actor(id="operator-7")
REQUESTER = Actor(id="requester-1")
MANAGER = Actor(id="manager-2")


def purchase_v1() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / "purchase_approval.json").read_text())
    return data


def with_node(doc: dict[str, Any], node_id: str, **changes: Any) -> dict[str, Any]:
    """A copy of ``doc`` whose node ``node_id`` has ``changes`` (``id`` renames it and every
    reference to it)."""
    text = json.dumps(doc)
    new_id = changes.get("id")
    if new_id is not None:
        text = text.replace(f'"{node_id}"', f'"{new_id}"')
        node_id = new_id
    out: dict[str, Any] = json.loads(text)
    for node in out["nodes"]:
        if node["id"] == node_id:
            node.update(changes)
    return out


async def publish(wf: WorkflowService, doc: dict[str, Any]) -> int:
    version, created = await wf.engine.publisher.publish(doc, actor=OPERATOR)
    assert created
    return version.version


async def waiting_purchases(wf: WorkflowService, count: int) -> list[str]:
    """``count`` large purchases, each waiting at the manager's approval on version 1."""
    ids = []
    for _ in range(count):
        view = await wf.engine.start(
            StartRequest(
                definition_key="purchase.approval",
                version=1,
                context=order(20_000),
                actor=REQUESTER,
            )
        )
        ids.append(view.id)
    await wf.delivery.drain()
    return ids
