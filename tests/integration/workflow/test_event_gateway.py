"""The event-based gateway in the engine, on SQLite and PostgreSQL (issue #24 item 3): an
instance waits for the applicant's message and a ten-day timer at once, as rows; the first to
happen continues, the other wait is cancelled in the same transaction."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest

from contracts.errors import InvalidTransition
from contracts.hookspecs import hookimpl
from contracts.kernel import Actor
from contracts.workflow.handlers import StepControl
from contracts.workflow.types import StartRequest, StepInput, StepResult
from core.clock import FixedClock
from core.i18n import gettext
from services.workflow.bootstrap import WorkflowService
from services.workflow.definition.bpmn import export_bpmn, import_bpmn
from services.workflow.labels import blocker_words
from services.workflow.runtime.kernel.migration_plan import MigrationRequest
from services.workflow.runtime.services.migration import Migrator
from tests.fakes.boot import booted

OFFICER = Actor(id="officer")


def flow(key: str) -> dict[str, Any]:
    step = {"type": "service_task", "handler": "race.record", "next": "done"}
    return {
        "format": 1,
        "key": key,
        "name": "Exigência",
        "protocol_prefix": "EXG",
        "nodes": [
            {"id": "begin", "type": "start", "next": "race"},
            {"id": "race", "type": "event_gateway", "next": ["reply", "wait"]},
            {
                "id": "reply",
                "name": "Resposta do requerente",
                "type": "user_task",
                "queue": f"{key}.operators",
                "produces": ["doc"],
                "next": "answered",
            },
            {"id": "wait", "type": "timer", "duration": "P10D", "next": "lapsed"},
            {"id": "answered", **step},
            {"id": "lapsed", **step},
            {"id": "done", "type": "end"},
        ],
    }


class Recorder:
    def __init__(self) -> None:
        self.taken: list[str] = []

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        self.taken.append(step.node_id)
        return StepResult(output={})


class RacePlugin:
    def __init__(self) -> None:
        self.recorder = Recorder()

    @hookimpl
    def tramita_register_queues(self, registry: Any) -> None:
        registry.add("race.demand.operators", "Operators")
        registry.add("race.drawn.operators", "Operators")

    @hookimpl
    def tramita_register_handlers(self, registry: Any) -> None:
        registry.add("race.record", self.recorder)

    @hookimpl
    def tramita_register_workflows(self, registry: Any) -> None:
        registry.add(flow("race.demand"))


@pytest.fixture
def plugin() -> RacePlugin:
    return RacePlugin()


@pytest.fixture
async def service(
    database_url: str, clock: FixedClock, plugin: RacePlugin
) -> AsyncIterator[WorkflowService]:
    async with booted(database_url, clock, race_test=plugin) as service:
        yield service


async def _start(service: WorkflowService, key: str = "race.demand") -> str:
    view = await service.engine.start(
        StartRequest(definition_key=key, context={}, actor=Actor(id="u"))
    )
    return view.id


async def _signal(service: WorkflowService, instance_id: str, name: str) -> str:
    try:
        await service.engine.signal(instance_id, name, payload={"doc": "D-1"}, actor=OFFICER)
    except InvalidTransition as exc:
        return str(exc.fields["code"])
    return "ok"


async def test_the_message_wins_and_the_timer_never_fires(
    service: WorkflowService, clock: FixedClock, plugin: RacePlugin
) -> None:
    instance_id = await _start(service)
    view = await service.engine.status(instance_id)
    assert (view.status, sorted(view.current_nodes)) == ("waiting", ["reply", "wait"])
    assert await _signal(service, instance_id, "reply") == "ok"
    clock.advance(timedelta(days=11))
    assert await service.engine.tick() == 0
    await service.delivery.drain()
    view = await service.engine.status(instance_id)
    assert view.status == "completed" and plugin.recorder.taken == ["answered"]
    stored, rebuilt = await service.engine.replayed_state(instance_id)
    assert stored == rebuilt


async def test_the_timer_wins_and_a_late_message_is_answered_like_an_unknown_one(
    service: WorkflowService, clock: FixedClock, plugin: RacePlugin
) -> None:
    instance_id = await _start(service)
    clock.advance(timedelta(days=10))
    assert await service.engine.tick() == 1
    late = await _signal(service, instance_id, "reply")
    assert late == await _signal(service, instance_id, "nobody_waits") == "no_receiver"
    await service.delivery.drain()
    view = await service.engine.status(instance_id)
    assert view.status == "completed" and plugin.recorder.taken == ["lapsed"]
    assert "doc" not in view.context


async def test_the_waits_survive_a_restart_between_arming_and_firing(
    database_url: str, clock: FixedClock, plugin: RacePlugin
) -> None:
    async with booted(database_url, clock, race_test=plugin) as first:
        instance_id = await _start(first)
    clock.advance(timedelta(days=10))
    async with booted(database_url, clock, race_test=plugin) as second:
        assert await second.engine.tick() == 1
        assert await _signal(second, instance_id, "reply") == "no_receiver"
        await second.delivery.drain()
        assert (await second.engine.status(instance_id)).status == "completed"
    assert plugin.recorder.taken == ["lapsed"]


async def test_a_message_and_a_due_timer_at_once_take_exactly_one_branch(
    service: WorkflowService, clock: FixedClock, plugin: RacePlugin
) -> None:
    instances = [await _start(service) for _ in range(4)]
    clock.advance(timedelta(days=10))
    results = await asyncio.gather(
        service.engine.tick(), *(_signal(service, i, "reply") for i in instances)
    )
    fired, answers = results[0], results[1:]
    assert isinstance(fired, int)
    assert set(answers) <= {"no_receiver", "ok"}
    assert fired + answers.count("ok") == len(instances)
    await service.delivery.drain()
    assert await service.engine.tick() == 0
    for instance_id in instances:
        history = await service.engine.history(instance_id)
        taken = [h.to_node for h in history if h.to_node in ("answered", "lapsed")]
        assert len(taken) == 1
        assert (await service.engine.status(instance_id)).status == "completed"
    assert len(plugin.recorder.taken) == len(instances)


async def test_an_event_gateway_drawn_in_bpmn_publishes_and_runs(
    service: WorkflowService, clock: FixedClock, plugin: RacePlugin
) -> None:
    drawn = export_bpmn(flow("race.drawn"))
    assert drawn.count(b"<bpmn:eventBasedGateway") == 1
    await service.engine.publisher.publish(import_bpmn(drawn), actor=Actor(id="designer"))
    instance_id = await _start(service, "race.drawn")
    assert await _signal(service, instance_id, "reply") == "ok"
    clock.advance(timedelta(days=10))
    assert await service.engine.tick() == 0
    await service.delivery.drain()
    assert (await service.engine.status(instance_id)).status == "completed"
    assert plugin.recorder.taken == ["answered"]


async def test_a_case_waiting_at_the_gateway_is_not_migrated_and_one_past_it_is(
    service: WorkflowService, clock: FixedClock, plugin: RacePlugin
) -> None:
    past = await _start(service)
    clock.advance(timedelta(days=10))
    racing = await _start(service)
    assert await service.engine.tick() == 1  # past's timer won; racing's is due in ten days
    renamed = flow("race.demand")
    renamed["nodes"][2]["name"] = "Resposta do interessado"
    await service.engine.publisher.publish(renamed, actor=OFFICER)
    request = MigrationRequest(
        definition_key="race.demand", from_version=1, to_version=2, instance_ids=(racing, past)
    )
    report = await Migrator(service.engine, service.uow_factory).migrate(request, actor=OFFICER)
    blocked, moved = report.instances
    assert (blocked.result, moved.result) == ("blocked", "migrated")
    (why,) = blocked.blockers
    assert (why.code, why.node_id, why.keys) == ("event_gateway_waiting", "race", ("reply", "wait"))
    assert blocker_words(why.code, why.keys, gettext).startswith(
        "o processo aguarda, num gateway de eventos, o primeiro dos seus eventos"
    )
    assert (await service.engine.status(racing)).definition_version == 1
    assert await _signal(service, racing, "reply") == "ok"  # its race goes on, untouched
    await service.delivery.drain()
    for instance_id, version in ((past, 2), (racing, 1)):
        view = await service.engine.status(instance_id)
        assert (view.status, view.definition_version) == ("completed", version)
    assert sorted(plugin.recorder.taken) == ["answered", "lapsed"]
