"""The inclusive (OR) gateway in the engine, on both databases: the fork runs every branch whose
condition holds (the default when none does), the join waits in the database for exactly the
tokens that were started, and a gateway drawn in BPMN publishes and runs the same way."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from contracts.hookspecs import hookimpl
from contracts.kernel import Actor
from contracts.workflow.handlers import StepControl
from contracts.workflow.types import StartRequest, StepInput, StepResult
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.definition.bpmn import export_bpmn, import_bpmn
from tests.fakes.boot import booted


def flow(key: str) -> dict[str, Any]:
    review = {"type": "service_task", "handler": "opinions.give", "next": "join"}
    return {
        "format": 1,
        "key": key,
        "name": "Licença",
        "protocol_prefix": "LIC",
        "nodes": [
            {"id": "begin", "type": "start", "produces": ["area", "noise"], "next": "split"},
            {
                "id": "split",
                "type": "inclusive",
                "branches": [
                    {"when": "area > 100", "next": "urban"},
                    {"when": "noise", "next": "environment"},
                ],
                "default": "archive",
            },
            {"id": "urban", **review},
            {"id": "environment", **review},
            {"id": "archive", **review},
            {"id": "join", "type": "inclusive", "next": "register"},
            {"id": "register", "type": "service_task", "handler": "opinions.give", "next": "done"},
            {"id": "done", "type": "end"},
        ],
    }


class Opinions:
    def __init__(self) -> None:
        self.given: list[str] = []

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        self.given.append(step.node_id)
        return StepResult(output={})


class InclusivePlugin:
    def __init__(self) -> None:
        self.opinions = Opinions()

    @hookimpl
    def tramita_register_queues(self, registry: Any) -> None:
        registry.add("inclusive.licence.operators", "Operators")
        registry.add("inclusive.drawn.operators", "Operators")

    @hookimpl
    def tramita_register_handlers(self, registry: Any) -> None:
        registry.add("opinions.give", self.opinions)

    @hookimpl
    def tramita_register_workflows(self, registry: Any) -> None:
        registry.add(flow("inclusive.licence"))


@pytest.fixture
def plugin() -> InclusivePlugin:
    return InclusivePlugin()


@pytest.fixture
async def service(
    database_url: str, clock: FixedClock, plugin: InclusivePlugin
) -> AsyncIterator[WorkflowService]:
    async with booted(database_url, clock, inclusive_test=plugin) as service:
        yield service


async def _start(service: WorkflowService, key: str, **context: Any) -> str:
    view = await service.engine.start(
        StartRequest(definition_key=key, context=context, actor=Actor(id="u"))
    )
    return view.id


async def _joins(service: WorkflowService, instance_id: str) -> list[tuple[str | None, str]]:
    history = await service.engine.history(instance_id)
    return [(h.from_node, h.event) for h in history if h.from_node == "join"]


async def test_every_true_branch_runs_and_the_join_fires_once(
    service: WorkflowService, plugin: InclusivePlugin
) -> None:
    instance_id = await _start(service, "inclusive.licence", area=250, noise=True)
    await service.delivery.drain()
    view = await service.engine.status(instance_id)
    assert view.status == "completed"
    assert sorted(plugin.opinions.given) == ["environment", "register", "urban"]
    assert len(await _joins(service, instance_id)) == 1
    stored, rebuilt = await service.engine.replayed_state(instance_id)
    assert stored == rebuilt


async def test_the_default_runs_when_no_condition_holds(
    service: WorkflowService, plugin: InclusivePlugin
) -> None:
    instance_id = await _start(service, "inclusive.licence", area=10, noise=False)
    await service.delivery.drain()
    assert (await service.engine.status(instance_id)).status == "completed"
    assert plugin.opinions.given == ["archive", "register"]


async def test_the_join_waits_in_the_database_for_the_branch_still_running(
    service: WorkflowService, plugin: InclusivePlugin
) -> None:
    instance_id = await _start(service, "inclusive.licence", area=250, noise=True)
    async with service.engine._uow() as uow:
        steps = {s.node_id: s.id for s in await uow.steps.of(instance_id)}
    assert sorted(steps) == ["environment", "urban"]
    assert await service.executor.run_step(steps["urban"]) == "succeeded"
    view = await service.engine.status(instance_id)
    assert (view.status, sorted(view.current_nodes)) == ("running", ["environment", "join"])
    assert await _joins(service, instance_id) == []
    await service.delivery.drain()
    view = await service.engine.status(instance_id)
    assert view.status == "completed"
    assert plugin.opinions.given.count("register") == 1


async def test_an_inclusive_gateway_drawn_in_bpmn_publishes_and_runs(
    service: WorkflowService, plugin: InclusivePlugin
) -> None:
    drawn = export_bpmn(flow("inclusive.drawn"))
    assert drawn.count(b"<bpmn:inclusiveGateway") == 2
    await service.engine.publisher.publish(import_bpmn(drawn), actor=Actor(id="designer"))
    instance_id = await _start(service, "inclusive.drawn", area=250, noise=False)
    await service.delivery.drain()
    assert (await service.engine.status(instance_id)).status == "completed"
    assert plugin.opinions.given == ["urban", "register"]
