"""The embedded sub-process in the engine, on SQLite and PostgreSQL (issue #24): its nodes run
as a child instance of the parent's own version, started with the parent's context, whose
context comes back when it completes; its interrupting boundary timer cancels what runs inside
and takes the timer's flow; a business error inside that the sub-process catches takes its
error boundary event. The definition is registered as drawn in BPMN and imported back."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest

from contracts.errors import BusinessError
from contracts.hookspecs import hookimpl
from contracts.kernel import Actor
from contracts.workflow.handlers import StepControl
from contracts.workflow.types import StartRequest, StepInput, StepResult
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.definition.bpmn import export_bpmn, import_bpmn
from services.workflow.runtime.services.calls import child_id
from tests.fakes.boot import booted

OFFICER = Actor(id="officer")


def definition() -> dict[str, Any]:
    step = {"type": "service_task", "handler": "sub.record", "next": "done"}
    inner = [
        {"id": "begin", "type": "start", "produces": ["amount"], "next": "check"},
        {"id": "check", "type": "service_task", "handler": "sub.check", "consumes": ["amount"]}
        | {"produces": ["checked"], "next": "review"},
        {"id": "review", "name": "Conferir", "type": "user_task", "queue": "sub.operators"}
        | {"next": "end"},
        {"id": "end", "type": "end"},
    ]
    return {
        "format": 1,
        "key": "sub.parent",
        "name": "Pedido",
        "protocol_prefix": "PED",
        "nodes": [
            {"id": "begin", "type": "start", "produces": ["amount"], "next": "analysis"},
            {
                "id": "analysis",
                "name": "Análise",
                "type": "subprocess",
                "nodes": inner,
                "produces": ["checked"],
                "timers": [{"id": "late", "duration": "PT1H", "next": "too_late"}],
                "errors": [{"code": "refused", "next": "refusal", "store": "why"}],
                "next": "after",
            },
            {"id": "after", "consumes": ["checked"], **step},
            {"id": "too_late", **step},
            {"id": "refusal", **step},
            {"id": "done", "type": "end"},
        ],
    }


class Check:
    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        if step.data["amount"] > 100:
            raise BusinessError("refused", details={})
        return StepResult(output={"checked": True})


class Recorder:
    def __init__(self) -> None:
        self.taken: list[str] = []

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        self.taken.append(step.node_id)
        return StepResult(output={})


class SubPlugin:
    def __init__(self) -> None:
        self.recorder = Recorder()

    @hookimpl
    def tramita_register_queues(self, registry: Any) -> None:
        registry.add("sub.operators", "Operators")
        registry.add("sub.parent.operators", "Operators")

    @hookimpl
    def tramita_register_handlers(self, registry: Any) -> None:
        registry.add("sub.check", Check())
        registry.add("sub.record", self.recorder)

    @hookimpl
    def tramita_register_workflows(self, registry: Any) -> None:
        registry.add(import_bpmn(export_bpmn(definition())))  # as a modeler would publish it


@pytest.fixture
def plugin() -> SubPlugin:
    return SubPlugin()


@pytest.fixture
async def service(
    database_url: str, clock: FixedClock, plugin: SubPlugin
) -> AsyncIterator[WorkflowService]:
    async with booted(database_url, clock, sub_test=plugin) as service:
        yield service


async def _start(service: WorkflowService, amount: int) -> tuple[str, str]:
    """Start a case and run what can run; return its id and its sub-process's."""
    view = await service.engine.start(
        StartRequest(definition_key="sub.parent", context={"amount": amount}, actor=OFFICER)
    )
    (token,) = await service.engine.tokens(view.id)
    await service.delivery.drain()
    return view.id, child_id(view.id, token.id, "analysis", token.attempt_group)


async def test_the_subprocess_runs_to_its_end_and_the_parent_continues(
    service: WorkflowService, plugin: SubPlugin
) -> None:
    parent_id, kid = await _start(service, 10)
    inner = await service.engine.status(kid)
    assert (inner.definition_key, inner.parent_instance_id) == ("sub.parent.analysis", parent_id)
    assert (inner.current_nodes, inner.context) == (("review",), {"amount": 10, "checked": True})
    await service.engine.signal(kid, "review", payload={}, actor=OFFICER)
    await service.delivery.drain()
    view = await service.engine.status(parent_id)
    assert (view.status, view.context) == ("completed", {"amount": 10, "checked": True})
    assert plugin.recorder.taken == ["after"]
    stored, rebuilt = await service.engine.replayed_state(kid)
    assert stored == rebuilt


async def test_the_interrupting_timer_cancels_the_subprocess_and_takes_its_flow(
    service: WorkflowService, plugin: SubPlugin, clock: FixedClock
) -> None:
    parent_id, kid = await _start(service, 10)
    clock.advance(timedelta(hours=2))
    assert await service.engine.tick() == 1
    inner = await service.engine.status(kid)
    assert (inner.status, inner.current_nodes) == ("cancelled", ())
    assert [t.status for t in await service.engine.tasks(kid)] == ["cancelled"]
    await service.delivery.drain()  # the child's end reaches a parent that moved on
    assert (await service.engine.status(parent_id)).status == "completed"
    assert plugin.recorder.taken == ["too_late"]


async def test_an_error_inside_takes_the_subprocess_error_boundary(
    service: WorkflowService, plugin: SubPlugin
) -> None:
    parent_id, kid = await _start(service, 500)
    assert (await service.engine.status(kid)).status == "failed"
    view = await service.engine.status(parent_id)
    assert view.status == "completed"
    assert view.context["why"] == {"code": "refused", "details": {"status": "failed"}}
    assert plugin.recorder.taken == ["refusal"]
