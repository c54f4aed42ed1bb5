"""Rules at work inside the engine: a decision table node, a validation node fed by a data
provider (whose temporary failure is retried), and a rule that runs too long — the step fails
with "rule timed out" on a pending task while the worker stays healthy."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest

from contracts.errors import RetryableFailure
from contracts.hookspecs import hookimpl
from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from tests.fakes.boot import booted

TABLE = {
    "hit_policy": "first",
    "inputs": [{"id": "amount", "expr": "amount"}],
    "outputs": ["level"],
    "rules": [
        {"when": ["> 10000"], "then": {"level": 2}},
        {"when": ["[1000..10000]"], "then": {"level": 1}},
        {"when": ["*"], "then": {"level": 0}},
    ],
}

FLOW = {
    "format": 1,
    "key": "rules.routing",
    "name": "Routing by table and supplier",
    "protocol_prefix": "RUL",
    "nodes": [
        {"id": "begin", "type": "start", "produces": ["amount", "supplier_id"], "next": "grade"},
        {
            "id": "grade",
            "type": "decision_table",
            "consumes": ["amount"],
            "produces": ["level"],
            "table": TABLE,
            "next": "supplier_ok",
        },
        {
            "id": "supplier_ok",
            "type": "validation",
            "consumes": ["supplier_id"],
            "requires": ["supplier"],
            "rules": [
                {
                    "id": "active",
                    "expr": "supplier.active",
                    "message": "The supplier is not active.",
                }
            ],
            "next": "route",
        },
        {
            "id": "route",
            "type": "exclusive",
            "consumes": ["level"],
            "branches": [{"when": "level >= 2", "next": "big"}],
            "default": "small",
        },
        {"id": "big", "type": "end", "result": "completed"},
        {"id": "small", "type": "end", "result": "rejected"},
    ],
}

SLOW_FLOW = {
    "format": 1,
    "key": "rules.slow",
    "name": "A rule that runs too long",
    "protocol_prefix": "SLO",
    "nodes": [
        {"id": "begin", "type": "start", "produces": ["xs"], "next": "check"},
        {
            "id": "check",
            "type": "validation",
            "consumes": ["xs"],
            "rules": [
                {
                    "id": "heavy",
                    "expr": "xs.map(a, xs.map(b, xs.map(c, a + b + c))).size() > 0",
                    "message": "Heavy rule.",
                }
            ],
            "next": "done",
        },
        {"id": "done", "type": "end"},
    ],
}


class Suppliers:
    """A module's registry of suppliers, down once before it answers."""

    def __init__(self) -> None:
        self.calls = 0
        self.fail_first = False

    async def fetch(self, name: str, context: Any) -> Any:
        self.calls += 1
        if self.fail_first and self.calls == 1:
            raise RetryableFailure("supplier registry unavailable", status=503)
        return {"id": context["supplier_id"], "active": context["supplier_id"] != "S-0"}


class RulesPlugin:
    def __init__(self) -> None:
        self.suppliers = Suppliers()

    @hookimpl
    def tramita_register_queues(self, registry: Any) -> None:
        registry.add("rules.routing.operators", "Operators")
        registry.add("rules.slow.operators", "Operators")

    @hookimpl
    def tramita_data_providers(self, registry: Any) -> None:
        registry.add("supplier", self.suppliers)

    @hookimpl
    def tramita_register_workflows(self, registry: Any) -> None:
        registry.add(FLOW)
        registry.add(SLOW_FLOW)


@pytest.fixture
def plugin() -> RulesPlugin:
    return RulesPlugin()


@pytest.fixture
async def service(
    database_url: str, clock: FixedClock, plugin: RulesPlugin
) -> AsyncIterator[WorkflowService]:
    async with booted(database_url, clock, rules_test=plugin) as service:
        yield service


async def _run(service: WorkflowService, key: str, context: dict[str, Any]) -> str:
    view = await service.engine.start(
        StartRequest(definition_key=key, context=context, actor=Actor(id="u"))
    )
    await service.delivery.drain()
    return view.id


@pytest.mark.parametrize(
    ("amount", "level", "status"), [(20000, 2, "completed"), (5, 0, "rejected")]
)
async def test_a_decision_table_sets_context_that_a_gateway_routes_on(
    service: WorkflowService, amount: int, level: int, status: str
) -> None:
    instance_id = await _run(service, "rules.routing", {"amount": amount, "supplier_id": "S-1"})
    view = await service.engine.status(instance_id)
    assert (view.status, view.context["level"]) == (status, level)


async def test_provider_data_feeds_a_validation_and_its_outage_is_retried(
    service: WorkflowService, plugin: RulesPlugin, clock: FixedClock
) -> None:
    plugin.suppliers.fail_first = True
    instance_id = await _run(service, "rules.routing", {"amount": 20000, "supplier_id": "S-1"})
    assert (await service.engine.status(instance_id)).status == "running"
    clock.advance(timedelta(seconds=5))
    await service.delivery.drain()
    assert (await service.engine.status(instance_id)).status == "completed"
    assert plugin.suppliers.calls == 2


async def test_a_failed_blocking_rule_opens_a_pending_task(service: WorkflowService) -> None:
    instance_id = await _run(service, "rules.routing", {"amount": 20000, "supplier_id": "S-0"})
    view = await service.engine.status(instance_id)
    assert (view.status, view.current_nodes) == ("stalled", ("supplier_ok",))
    (task,) = await service.engine.tasks(instance_id)
    assert task.queue == "rules.routing.operators" and task.outcomes == ("retry", "fail")
    async with service.engine._uow() as uow:
        runs = [r for r in await uow.steps.of(instance_id) if r.node_id == "supplier_ok"]
    assert runs[-1].error is not None
    assert runs[-1].error["details"] == [
        {"rule": "active", "message": "The supplier is not active.", "severity": "error"}
    ]


async def test_a_rule_that_runs_too_long_is_stopped_and_the_worker_goes_on(
    service: WorkflowService,
) -> None:
    slow = await _run(service, "rules.slow", {"xs": list(range(400))})
    view = await service.engine.status(slow)
    assert (view.status, view.current_nodes) == ("stalled", ("check",))
    async with service.engine._uow() as uow:
        (run,) = await uow.steps.of(slow)
    assert run.error is not None and run.error["problem"] == "rule-timeout"
    fine = await _run(service, "rules.routing", {"amount": 20000, "supplier_id": "S-1"})
    assert (await service.engine.status(fine)).status == "completed"
