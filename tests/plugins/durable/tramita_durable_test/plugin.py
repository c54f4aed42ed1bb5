"""A flow (input, validation, approval, an inclusive fork whose true branches are an integration
followed by a notification and a direct flow to the join, whose third branch is never taken, the
inclusive join, end) whose steps call two real HTTP partners: an ERP that honours
``Idempotency-Key`` and a messaging gateway that does not but can be queried by the process
reference. Installed as a real distribution
with an entry point, so worker processes discover it like any plugin.

Partner addresses come from ``DURABLE_ERP_URL`` and ``DURABLE_GATEWAY_URL``.
"""

from __future__ import annotations

import os
from typing import Any

import httpx

from contracts.errors import BusinessError, RetryableFailure, ValidationRejected
from contracts.hookspecs import hookimpl
from contracts.workflow.types import StepInput, StepResult

APPROVER_ID = "00000000-0000-7000-8000-00000000a001"
OPERATOR_ID = "00000000-0000-7000-8000-00000000a002"
PERMISSION = "durable.approve"

FAST_FAILURE = {
    "max_attempts": 6,
    "backoff_base_s": 0.2,
    "backoff_cap_s": 1.0,
    "timeout_s": 1.0,
    "pending_queue": "durable.operators",
}

DEFINITION: dict[str, Any] = {
    "format": 1,
    "key": "durable.order",
    "name": "Durable order",
    "protocol_prefix": "DUR",
    "nodes": [
        {"id": "input", "type": "start", "produces": ["amount", "item"], "next": "check"},
        {
            "id": "check",
            "type": "validation",
            "consumes": ["amount"],
            "rules": [{"id": "positive", "expr": "amount > 0", "message": "Amount must be > 0."}],
            "failure": FAST_FAILURE,
            "next": "approve",
        },
        {
            "id": "approve",
            "name": "Approve",
            "type": "approval",
            "queue": "durable.approvers",
            "outcomes": {"approve": "split", "reject": "rejected"},
        },
        {
            "id": "split",
            "type": "inclusive",
            "branches": [
                {"when": "amount > 0", "next": "order"},
                {"when": "amount > 0", "next": "join"},
                {"when": "amount > 1000000", "next": "large"},
            ],
        },
        {
            "id": "order",
            "type": "service_task",
            "handler": "erp.order",
            "consumes": ["amount", "item"],
            "produces": ["order_id"],
            "failure": FAST_FAILURE,
            "next": "notify",
        },
        {
            "id": "notify",
            "type": "notification",
            "handler": "gateway.send",
            "consumes": ["order_id"],
            "produces": ["message_id"],
            "failure": FAST_FAILURE,
            "next": "join",
        },
        {
            "id": "large",
            "type": "validation",
            "consumes": ["amount"],
            "rules": [{"id": "capped", "expr": "amount < 10000000", "message": "Too large."}],
            "failure": FAST_FAILURE,
            "next": "join",
        },
        {"id": "join", "type": "inclusive", "next": "done"},
        {"id": "done", "type": "end"},
        {"id": "rejected", "type": "end", "result": "rejected"},
    ],
}


SLOW_LANE: dict[str, Any] = {
    "format": 1,
    "key": "durable.slow",
    "name": "Slow ERP lane",
    "protocol_prefix": "SLW",
    "nodes": [
        {"id": "input", "type": "start", "produces": ["amount", "item"], "next": "order"},
        {
            "id": "order",
            "type": "service_task",
            "handler": "erp.order",
            "consumes": ["amount", "item"],
            "produces": ["order_id"],
            "failure": {**FAST_FAILURE, "timeout_s": 10.0},
            "next": "done",
        },
        {"id": "done", "type": "end"},
    ],
}

QUICK_LANE: dict[str, Any] = {
    "format": 1,
    "key": "durable.quick",
    "name": "Approvals that do not touch the ERP",
    "protocol_prefix": "QCK",
    "nodes": [
        {"id": "input", "type": "start", "produces": ["amount"], "next": "check"},
        {
            "id": "check",
            "type": "validation",
            "consumes": ["amount"],
            "rules": [{"id": "positive", "expr": "amount > 0", "message": "Amount must be > 0."}],
            "failure": FAST_FAILURE,
            "next": "approve",
        },
        {
            "id": "approve",
            "name": "Approve",
            "type": "approval",
            "queue": "durable.approvers",
            "outcomes": {"approve": "done", "reject": "done"},
        },
        {"id": "done", "type": "end"},
    ],
}


# A call activity (the child places the ERP order; the parent gets its ``order_id`` back) and a
# saga (the ERP order is compensated by a refund message at the gateway when shipping fails
# terminally): the crash-resume tests of issue #24.
SLOW_OK = {**FAST_FAILURE, "timeout_s": 5.0}

CALL_CHILD: dict[str, Any] = {
    "format": 1,
    "key": "durable.child",
    "name": "Order placed by a call",
    "protocol_prefix": "CHD",
    "nodes": [
        {"id": "input", "type": "start", "produces": ["amount", "item"], "next": "order"},
        {
            "id": "order",
            "type": "service_task",
            "handler": "erp.order",
            "consumes": ["amount", "item"],
            "produces": ["order_id"],
            "failure": SLOW_OK,
            "next": "done",
        },
        {"id": "done", "type": "end"},
    ],
}

CALL_PARENT: dict[str, Any] = {
    "format": 1,
    "key": "durable.parent",
    "name": "Order through a call activity",
    "protocol_prefix": "PAI",
    "nodes": [
        {"id": "input", "type": "start", "produces": ["amount", "item"], "next": "sub"},
        {
            "id": "sub",
            "type": "call",
            "definition": "durable.child",
            "in": {"amount": "amount", "item": "item"},
            "out": {"order_id": "order_id"},
            "produces": ["order_id"],
            "next": "done",
        },
        {"id": "done", "type": "end"},
    ],
}

SAGA: dict[str, Any] = {
    "format": 1,
    "key": "durable.saga",
    "name": "Order refunded when shipping fails",
    "protocol_prefix": "SAG",
    "nodes": [
        {"id": "input", "type": "start", "produces": ["amount", "item"], "next": "order"},
        {
            "id": "order",
            "type": "service_task",
            "handler": "erp.order",
            "compensation": "gateway.refund",
            "consumes": ["amount", "item"],
            "produces": ["order_id"],
            "failure": SLOW_OK,
            "next": "ship",
        },
        {
            "id": "ship",
            "type": "service_task",
            "handler": "durable.refuse",
            "consumes": ["order_id"],
            "failure": {**FAST_FAILURE, "on_validation_error": "fail"},
            "next": "done",
        },
        {"id": "done", "type": "end"},
    ],
}


def _raise_for(response: httpx.Response) -> None:
    if response.status_code >= 500:
        raise RetryableFailure("partner server error", status=response.status_code)
    if response.status_code >= 400:
        raise ValidationRejected("partner refused the request", status=response.status_code)


class ErpOrder:
    """Creates an order; the ERP deduplicates on the Idempotency-Key header."""

    async def execute(self, step: StepInput, control: Any) -> StepResult:
        async with httpx.AsyncClient(base_url=os.environ["DURABLE_ERP_URL"]) as client:
            try:
                response = await client.post(
                    "/orders",
                    json={"reference": step.reference, **step.data},
                    headers={"Idempotency-Key": step.idempotency_key},
                    timeout=10.0,
                )
            except httpx.TransportError as exc:
                raise RetryableFailure("partner unreachable", error=type(exc).__name__) from None
        _raise_for(response)
        return StepResult(output={"order_id": response.json()["order_id"]})


class GatewaySend:
    """Sends a message; the gateway has no idempotency, so a retry first looks the message up
    by the process reference (reconciliation)."""

    async def reconcile(self, step: StepInput) -> StepResult | None:
        async with httpx.AsyncClient(base_url=os.environ["DURABLE_GATEWAY_URL"]) as client:
            try:
                response = await client.get(
                    "/messages", params={"reference": step.reference}, timeout=10.0
                )
            except httpx.TransportError as exc:
                raise RetryableFailure("partner unreachable", error=type(exc).__name__) from None
        if response.status_code == 404:
            return None
        _raise_for(response)
        return StepResult(output={"message_id": response.json()["message_id"]})

    async def execute(self, step: StepInput, control: Any) -> StepResult:
        async with httpx.AsyncClient(base_url=os.environ["DURABLE_GATEWAY_URL"]) as client:
            try:
                response = await client.post(
                    "/messages",
                    json={"reference": step.reference, "order_id": step.data["order_id"]},
                    timeout=10.0,
                )
            except httpx.TransportError as exc:
                raise RetryableFailure("partner unreachable", error=type(exc).__name__) from None
        _raise_for(response)
        return StepResult(output={"message_id": response.json()["message_id"]})


class GatewayRefund(GatewaySend):
    """The saga's compensation: a refund message at the gateway (no idempotency there, so a
    retry first finds the message by the process reference)."""

    async def execute(self, step: StepInput, control: Any) -> StepResult:
        async with httpx.AsyncClient(base_url=os.environ["DURABLE_GATEWAY_URL"]) as client:
            try:
                response = await client.post(
                    "/messages", json={"reference": step.reference, "refund": True}, timeout=10.0
                )
            except httpx.TransportError as exc:
                raise RetryableFailure("partner unreachable", error=type(exc).__name__) from None
        _raise_for(response)
        return StepResult(output={"message_id": response.json()["message_id"]})


class Refuse:
    """Shipping that always meets a business refusal (no route: the instance fails)."""

    async def execute(self, step: StepInput, control: Any) -> StepResult:
        raise BusinessError("out_of_stock")


@hookimpl
def tramita_register_permissions(registry: Any) -> None:
    registry.add(PERMISSION, "Approve durable test orders")


@hookimpl
def tramita_register_queues(registry: Any) -> None:
    registry.add("durable.approvers", "Approvers", members=(APPROVER_ID,), permission=PERMISSION)
    registry.add("durable.operators", "Operators", members=(OPERATOR_ID,), permission=PERMISSION)


@hookimpl
def tramita_register_handlers(registry: Any) -> None:
    registry.add("erp.order", ErpOrder())
    registry.add("gateway.send", GatewaySend())
    registry.add("gateway.refund", GatewayRefund())
    registry.add("durable.refuse", Refuse())


@hookimpl
def tramita_register_workflows(registry: Any) -> None:
    registry.add(DEFINITION)
    registry.add(SLOW_LANE)
    registry.add(QUICK_LANE)
    registry.add(CALL_CHILD)
    registry.add(CALL_PARENT)
    registry.add(SAGA)
