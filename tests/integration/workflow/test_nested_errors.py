"""A business error raised two levels deep reaches the nearest enclosing scope that catches it,
on SQLite and PostgreSQL (issue #24): a service task inside sub-process ``s2`` inside
sub-process ``s1``, or inside a sub-process of a called definition, with no route at the inner
levels. Caught by its code or by ``*`` two levels up; a code the middle level catches stays
there; caught nowhere, the outermost instance fails as for one level (``child_failed``). The
definitions are registered as drawn in BPMN and imported back."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from contracts.errors import BusinessError
from contracts.hookspecs import hookimpl
from contracts.kernel import Actor
from contracts.workflow.handlers import StepControl
from contracts.workflow.types import InstanceView, StartRequest, StepInput, StepResult
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.definition.bpmn import export_bpmn, import_bpmn
from services.workflow.runtime.services.calls import child_id
from tests.fakes.boot import booted

OFFICER = Actor(id="officer")
FIX = {"type": "service_task", "handler": "nest.record", "next": "done"}
Routes = list[dict[str, Any]]


def _s1_nodes(s2_errors: Routes) -> list[dict[str, Any]]:
    """s1: the sub-process s2 holding ``check`` (which refuses), and a step s2 may route to."""
    s2 = [
        {"id": "b2", "type": "start", "next": "check"},
        {"id": "check", "type": "service_task", "handler": "nest.check", "next": "e2"}
        | {"failure": {"on_validation_error": "fail"}},
        {"id": "e2", "type": "end"},
    ]
    s2_node = {"id": "s2", "name": "Conferir", "type": "subprocess", "nodes": s2, "next": "e1"}
    middle = [{"id": "mid_fix", **FIX, "next": "e1"}] if s2_errors else []
    return [
        {"id": "b1", "type": "start", "next": "s2"},
        s2_node | ({"errors": s2_errors} if s2_errors else {}),
        *middle,
        {"id": "e1", "type": "end"},
    ]


def nested(key: str, s1_errors: Routes, s2_errors: Routes | None = None) -> dict[str, Any]:
    s1 = {"id": "s1", "name": "Análise", "type": "subprocess", "nodes": _s1_nodes(s2_errors or [])}
    fix = [{"id": "fix", **FIX}] if s1_errors else []
    return {
        "format": 1,
        "key": key,
        "name": "Pedido",
        "protocol_prefix": "PED",
        "nodes": [
            {"id": "begin", "type": "start", "next": "s1"},
            s1 | {"next": "done"} | ({"errors": s1_errors} if s1_errors else {}),
            *fix,
            {"id": "done", "type": "end"},
        ],
    }


def caller() -> dict[str, Any]:
    return {
        "format": 1,
        "key": "nest.caller",
        "name": "Chamador",
        "protocol_prefix": "CHA",
        "nodes": [
            {"id": "begin", "type": "start", "next": "c"},
            {"id": "c", "type": "call", "definition": "nest.called", "next": "done"}
            | {"errors": [{"code": "refused", "next": "fix", "store": "why"}]},
            {"id": "fix", **FIX},
            {"id": "done", "type": "end"},
        ],
    }


DEFINITIONS = [
    nested("nest.caught", [{"code": "refused", "next": "fix", "store": "why"}]),
    nested("nest.any", [{"code": "*", "next": "fix", "store": "why"}]),
    nested("nest.none", [{"code": "other", "next": "fix"}]),
    nested(
        "nest.middle",
        [{"code": "refused", "next": "fix"}],
        [{"code": "refused", "next": "mid_fix", "store": "why"}],
    ),
    nested("nest.called", []),
    caller(),
]


class Check:
    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        raise BusinessError("refused", details={})


class Recorder:
    def __init__(self) -> None:
        self.taken: list[str] = []

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        self.taken.append(step.node_id)
        return StepResult(output={})


class NestPlugin:
    def __init__(self) -> None:
        self.recorder = Recorder()

    @hookimpl
    def tramita_register_queues(self, registry: Any) -> None:
        for definition in DEFINITIONS:
            registry.add(f"{definition['key']}.operators", "Operators")

    @hookimpl
    def tramita_register_handlers(self, registry: Any) -> None:
        registry.add("nest.check", Check())
        registry.add("nest.record", self.recorder)

    @hookimpl
    def tramita_register_workflows(self, registry: Any) -> None:
        for definition in DEFINITIONS:
            registry.add(import_bpmn(export_bpmn(definition)))  # as a modeler would publish it


@pytest.fixture
def plugin() -> NestPlugin:
    return NestPlugin()


@pytest.fixture
async def service(
    database_url: str, clock: FixedClock, plugin: NestPlugin
) -> AsyncIterator[WorkflowService]:
    async with booted(database_url, clock, nest_test=plugin) as service:
        yield service


async def _child(service: WorkflowService, parent_id: str, node_id: str) -> InstanceView:
    """The child the parent's wait at ``node_id`` started (its token still rests there, or
    has moved on: the first token ever to enter the node is ``t``, attempt group 1)."""
    return await service.engine.status(child_id(parent_id, "t", node_id, 1))


async def _run(service: WorkflowService, key: str) -> tuple[InstanceView, InstanceView]:
    """Start ``key``, run everything that can run; the outer instance and the middle one."""
    view = await service.engine.start(StartRequest(definition_key=key, actor=OFFICER))
    await service.delivery.drain()
    middle = await _child(service, view.id, "c" if key == "nest.caller" else "s1")
    return await service.engine.status(view.id), middle


async def test_an_error_two_levels_deep_is_caught_by_its_code_two_levels_up(
    service: WorkflowService, plugin: NestPlugin
) -> None:
    outer, middle = await _run(service, "nest.caught")
    inner = await _child(service, middle.id, "s2")
    assert (inner.status, middle.status) == ("failed", "failed")
    assert middle.failure is not None and middle.failure.reason == "business_error"
    assert outer.status == "completed"
    assert outer.context["why"] == {"code": "refused", "details": {"status": "failed"}}
    assert plugin.recorder.taken == ["fix"]


async def test_an_error_two_levels_deep_is_caught_by_a_catch_all_two_levels_up(
    service: WorkflowService, plugin: NestPlugin
) -> None:
    outer, _ = await _run(service, "nest.any")
    assert outer.status == "completed"
    assert outer.context["why"] == {"code": "refused", "details": {"status": "failed"}}
    assert plugin.recorder.taken == ["fix"]


async def test_an_error_no_scope_catches_fails_the_outermost_instance(
    service: WorkflowService, plugin: NestPlugin
) -> None:
    outer, middle = await _run(service, "nest.none")
    assert middle.failure is not None and middle.failure.reason == "child_failed"
    assert outer.status == "failed"
    assert outer.failure is not None
    assert (outer.failure.reason, outer.failure.node_id) == ("child_failed", "s1")
    assert plugin.recorder.taken == []


async def test_an_error_the_middle_level_catches_does_not_reach_the_outer_one(
    service: WorkflowService, plugin: NestPlugin
) -> None:
    outer, middle = await _run(service, "nest.middle")
    assert middle.status == "completed"
    assert middle.context["why"] == {"code": "refused", "details": {"status": "failed"}}
    assert (outer.status, outer.context) == ("completed", middle.context)
    assert plugin.recorder.taken == ["mid_fix"]


async def test_an_error_in_a_subprocess_of_a_called_definition_reaches_the_call(
    service: WorkflowService, plugin: NestPlugin
) -> None:
    outer, called = await _run(service, "nest.caller")
    assert (called.definition_key, called.status) == ("nest.called", "failed")
    assert outer.status == "completed"
    assert outer.context["why"] == {"code": "refused", "details": {"status": "failed"}}
    assert plugin.recorder.taken == ["fix"]
    stored, rebuilt = await service.engine.replayed_state(called.id)
    assert stored == rebuilt
