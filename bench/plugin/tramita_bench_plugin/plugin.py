"""Six nodes whose work is trivial, so the benchmark measures the engine, not the partners."""

from __future__ import annotations

from typing import Any

from contracts.hookspecs import hookimpl
from contracts.workflow.types import StepInput, StepResult

NODES: list[dict[str, Any]] = [
    {"id": "input", "type": "start", "produces": ["amount"], "next": "validation"},
    {
        "id": "validation",
        "type": "validation",
        "consumes": ["amount"],
        "rules": [{"id": "positive", "expr": "amount > 0", "message": "positive"}],
        "next": "approval",
    },
    {
        "id": "approval",
        "type": "service_task",
        "handler": "bench.approve",
        "consumes": ["amount"],
        "produces": ["approved"],
        "next": "integration",
    },
    {
        "id": "integration",
        "type": "service_task",
        "handler": "bench.integrate",
        "consumes": ["amount"],
        "produces": ["order_id"],
        "next": "notification",
    },
    {
        "id": "notification",
        "type": "notification",
        "handler": "bench.notify",
        "consumes": ["order_id"],
        "next": "end",
    },
    {"id": "end", "type": "end"},
]


class Echo:
    def __init__(self, output: dict[str, Any]) -> None:
        self.output = output

    async def execute(self, step: StepInput, control: Any) -> StepResult:
        return StepResult(output=dict(self.output))


@hookimpl
def tramita_register_queues(registry: Any) -> None:
    registry.add("bench.six.operators", "Bench operators")


@hookimpl
def tramita_register_handlers(registry: Any) -> None:
    registry.add("bench.approve", Echo({"approved": True}))
    registry.add("bench.integrate", Echo({"order_id": "ORD-1"}))
    registry.add("bench.notify", Echo({}))


@hookimpl
def tramita_register_workflows(registry: Any) -> None:
    registry.add(
        {
            "format": 1,
            "key": "bench.six",
            "name": "Bench six nodes",
            "protocol_prefix": "BEN",
            "nodes": NODES,
        }
    )
