"""Shared helpers of the operations tests: a purchase definition that holds a CPF, flows."""

from __future__ import annotations

import json
from typing import Any

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from services.workflow.bootstrap import WorkflowService
from tests.fakes.purchase import EXAMPLES

REQUESTER = Actor(id="requester-1")
MANAGER = Actor(id="manager-1")
CPF = "123.456.789-09"
NAME = "Maria Silva"
EMAIL = "maria@example.org"


def personal_purchase(retention_days: int | None = None) -> dict[str, Any]:
    """The purchase example with a CPF in its input, classified personal, and a retention."""
    defn = json.loads((EXAMPLES / "purchase_approval.json").read_text())
    defn["personal"] = [*defn["personal"], "requester_cpf"]
    start = next(n for n in defn["nodes"] if n["type"] == "start")
    start["produces"] = [*start["produces"], "requester_cpf"]
    if retention_days is not None:
        defn["retention"] = {"personal_days": retention_days}
    return dict(defn)


def order(value: float, *, name: str = NAME, email: str = EMAIL, cpf: str = CPF) -> dict[str, Any]:
    return {
        "value": value,
        "item": "paper",
        "quantity": 10,
        "requester": name,
        "requester_email": email,
        "requester_cpf": cpf,
    }


async def publish_personal(wf: WorkflowService, retention_days: int | None = None) -> None:
    await wf.engine.publisher.publish(personal_purchase(retention_days), actor=Actor.system("test"))


async def start(
    wf: WorkflowService, value: float, *, retention_days: int | None = None, **who: str
) -> str:
    """Start (and drain) a purchase whose context holds a name, an e-mail and a CPF, on the
    personal variant with ``retention_days`` (publishing is a no-op once that is the latest)."""
    await publish_personal(wf, retention_days)
    view = await wf.engine.start(
        StartRequest(
            definition_key="purchase.approval", context=order(value, **who), actor=REQUESTER
        )
    )
    await wf.delivery.drain()
    return view.id
