"""A test plugin for the seed's purchase approval: partners outside our control, as fakes.

The stock and payment "systems" are in-memory partners that count what they did, keyed by the
idempotency key they receive — as a real partner honouring ``Idempotency-Key`` would.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contracts.errors import RetryableFailure, ValidationRejected
from contracts.hookspecs import hookimpl
from contracts.workflow.handlers import StepControl
from contracts.workflow.types import StepInput, StepResult

EXAMPLES = Path(__file__).parents[2] / "examples"
REVIEW_FORM = {
    "format": 1,
    "key": "purchase.review",
    "version": 1,
    "title": "Manager review",
    "fields": [{"id": "approval_comment", "type": "long_text", "label": "Comment"}],
}


@dataclass
class Partner:
    """Counts effects per idempotency key; can be told to fail the next calls."""

    name: str
    effects: dict[str, dict[str, Any]] = field(default_factory=dict)
    calls: int = 0
    fail_next: list[Exception] = field(default_factory=list)

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        self.calls += 1
        if self.fail_next:
            raise self.fail_next.pop(0)
        effect = self.effects.setdefault(
            step.idempotency_key, {"id": f"{self.name}-{len(self.effects) + 1}", **step.data}
        )
        return StepResult(output=self.output(effect))

    def output(self, effect: dict[str, Any]) -> dict[str, Any]:
        return {}


class Stock(Partner):
    def output(self, effect: dict[str, Any]) -> dict[str, Any]:
        return {"reservation_id": effect["id"]}


class Payment(Partner):
    def output(self, effect: dict[str, Any]) -> dict[str, Any]:
        return {"payment_id": effect["id"]}


class PurchasePlugin:
    """Registered directly on the plugin host by tests (a plugin object, like any other)."""

    def __init__(self) -> None:
        self.stock = Stock("stock")
        self.release = Partner("release")
        self.payment = Payment("payment")
        self.notify = Partner("notify")

    @hookimpl
    def tramita_register_permissions(self, registry: Any) -> None:
        registry.add("purchase.approve", "Approve purchases")

    @hookimpl
    def tramita_register_queues(self, registry: Any) -> None:
        registry.add(
            "purchase.managers",
            "Purchase managers",
            forward_to=("purchase.approval.operators",),
        )
        registry.add("purchase.approval.operators", "Purchase operators")

    @hookimpl
    def tramita_register_forms(self, registry: Any) -> None:
        registry.add(REVIEW_FORM)

    @hookimpl
    def tramita_register_handlers(self, registry: Any) -> None:
        registry.add("stock.reserve", self.stock)
        registry.add("stock.release", self.release)
        registry.add("payment.charge", self.payment)
        registry.add("purchase.notify", self.notify)

    @hookimpl
    def tramita_register_workflows(self, registry: Any) -> None:
        registry.add(json.loads((EXAMPLES / "purchase_approval.json").read_text()))


def retryable() -> Exception:
    return RetryableFailure("partner answered 503", status=503)


def rejected() -> Exception:
    return ValidationRejected("partner refused the data", status=422)


def order(value: float) -> dict[str, object]:
    return {
        "value": value,
        "item": "paper",
        "quantity": 10,
        "requester": "Maria Silva",
        "requester_email": "maria@example.org",
    }
