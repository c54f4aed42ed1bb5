"""Sagas on a business path: a compensation end drawn in BPMN runs the compensation of each
completed step that has one, most recent first and once each, then ends the case with the end's
result; a cancellation that asks for it does the same, then the case is cancelled."""

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
from services.workflow.definition.bpmn import import_bpmn
from tests.fakes.boot import booted

DRAWN = b"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:tramita="https://tramita.dev/bpmn" id="d" targetNamespace="urn:test">
  <bpmn:process id="Saga" name="Saga" tramita:key="saga.bpmn" tramita:protocolPrefix="SAG">
    <bpmn:startEvent id="s"/>
    <bpmn:serviceTask id="reserve" tramita:handler="saga.reserve"/>
    <bpmn:boundaryEvent id="reserve_undo" attachedToRef="reserve">
      <bpmn:compensateEventDefinition/>
    </bpmn:boundaryEvent>
    <bpmn:serviceTask id="log" tramita:handler="saga.log"/>
    <bpmn:serviceTask id="charge" tramita:handler="saga.charge"/>
    <bpmn:boundaryEvent id="charge_undo" attachedToRef="charge">
      <bpmn:compensateEventDefinition/>
    </bpmn:boundaryEvent>
    <bpmn:serviceTask id="release" isForCompensation="true" tramita:handler="saga.release"/>
    <bpmn:serviceTask id="refund" isForCompensation="true" tramita:handler="saga.refund"/>
    <bpmn:endEvent id="undone" tramita:result="rejected">
      <bpmn:compensateEventDefinition/>
    </bpmn:endEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="reserve"/>
    <bpmn:sequenceFlow id="f2" sourceRef="reserve" targetRef="log"/>
    <bpmn:sequenceFlow id="f3" sourceRef="log" targetRef="charge"/>
    <bpmn:sequenceFlow id="f4" sourceRef="charge" targetRef="undone"/>
    <bpmn:association id="a1" sourceRef="reserve_undo" targetRef="release"/>
    <bpmn:association id="a2" sourceRef="charge_undo" targetRef="refund"/>
  </bpmn:process>
</bpmn:definitions>
"""


class Recorder:
    """Every handler of the saga: records which handler ran for which node."""

    def __init__(self, calls: list[tuple[str, str]], name: str) -> None:
        self.calls, self.name = calls, name

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        self.calls.append((self.name, step.node_id))
        return StepResult(output={})


WAITING = {
    "format": 1,
    "key": "saga.waiting",
    "name": "Saga waiting",
    "protocol_prefix": "SAW",
    "nodes": [
        {"id": "begin", "type": "start", "next": "reserve"},
        {
            "id": "reserve",
            "type": "service_task",
            "handler": "saga.reserve",
            "compensation": "saga.release",
            "next": "charge",
        },
        {
            "id": "charge",
            "type": "service_task",
            "handler": "saga.charge",
            "compensation": "saga.refund",
            "next": "deliver",
        },
        {
            "id": "deliver",
            "type": "user_task",
            "name": "Entregar",
            "queue": "saga.clerks",
            "next": "done",
        },
        {"id": "done", "type": "end"},
    ],
}


class SagaPlugin:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    @hookimpl
    def tramita_register_queues(self, registry: Any) -> None:
        registry.add("saga.bpmn.operators", "Operators")
        registry.add("saga.waiting.operators", "Operators")
        registry.add("saga.clerks", "Clerks")

    @hookimpl
    def tramita_register_handlers(self, registry: Any) -> None:
        for name in ("reserve", "log", "charge", "release", "refund"):
            registry.add(f"saga.{name}", Recorder(self.calls, name))

    @hookimpl
    def tramita_register_workflows(self, registry: Any) -> None:
        registry.add(WAITING)


@pytest.fixture
def plugin() -> SagaPlugin:
    return SagaPlugin()


@pytest.fixture
async def service(
    database_url: str, clock: FixedClock, plugin: SagaPlugin
) -> AsyncIterator[WorkflowService]:
    async with booted(database_url, clock, saga_test=plugin) as service:
        yield service


async def test_a_compensation_end_compensates_completed_steps_in_reverse_order_once(
    service: WorkflowService, plugin: SagaPlugin
) -> None:
    await service.engine.publisher.publish(import_bpmn(DRAWN), actor=Actor(id="designer"))
    view = await service.engine.start(
        StartRequest(definition_key="saga.bpmn", context={}, actor=Actor(id="u"))
    )
    await service.delivery.drain()
    await service.delivery.drain()  # nothing is left to run
    assert plugin.calls == [
        ("reserve", "reserve"),
        ("log", "log"),
        ("charge", "charge"),
        ("refund", "charge"),
        ("release", "reserve"),
    ]
    ended = await service.engine.status(view.id)
    assert (ended.status, ended.failure) == ("rejected", None)
    async with service.engine._uow() as uow:
        runs = [r for r in await uow.steps.of(view.id) if r.kind == "compensation"]
    assert sorted((r.node_id, r.status) for r in runs) == [
        ("charge", "succeeded"),
        ("reserve", "succeeded"),
    ]


async def test_a_cancellation_asking_for_compensation_compensates_then_cancels(
    service: WorkflowService, plugin: SagaPlugin
) -> None:
    view = await service.engine.start(
        StartRequest(definition_key="saga.waiting", context={}, actor=Actor(id="u"))
    )
    await service.delivery.drain()
    assert (await service.engine.status(view.id)).status == "waiting"
    await service.engine.cancel(
        view.id, reason="pedido desistido", actor=Actor(id="op"), compensate=True
    )
    await service.delivery.drain()
    assert plugin.calls[2:] == [("refund", "charge"), ("release", "reserve")]
    assert (await service.engine.status(view.id)).status == "cancelled"
    (task,) = await service.engine.tasks(view.id)
    assert task.status == "cancelled"
