"""The call activity in the engine, on SQLite and PostgreSQL (issue #24 item 3): a parent's
token starts a child of another definition in the same transaction (``in`` mapping, version
resolved then and pinned), waits, and resumes with the ``out`` mapping when the child
completes; the child inherits the parent's subject, not its business key; cancelling the
parent cancels the child and closes its open dead letters; a child that does not complete takes the
parent's ``child_failed`` route; an interrupting boundary timer on the call cancels the child
and takes its flow (drawn in BPMN too); the wait survives a restart."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest

from contracts.errors import NotFound, RetryableFailure
from contracts.hookspecs import hookimpl
from contracts.kernel import Actor
from contracts.workflow.handlers import StepControl
from contracts.workflow.types import StartRequest, StepInput, StepResult, SubjectRef
from core.audit import read_trail
from core.clock import FixedClock
from core.i18n import gettext
from services.workflow.bootstrap import WorkflowService
from services.workflow.definition.bpmn import export_bpmn, import_bpmn
from services.workflow.labels import blocker_words
from services.workflow.runtime.kernel.migration_plan import MigrationRequest
from services.workflow.runtime.services.calls import child_id
from services.workflow.runtime.services.migration import Migrator
from tests.fakes.boot import booted

OFFICER = Actor(id="officer")
CASE = SubjectRef(type="call.case", id="case-1")


def child(name: str = "Parecer") -> dict[str, Any]:
    return {
        "format": 1,
        "key": "call.child",
        "name": name,
        "protocol_prefix": "PAR",
        "nodes": [
            {"id": "begin", "type": "start", "produces": ["value", "who"], "next": "review"},
            {
                "id": "review",
                "name": "Emitir parecer",
                "type": "user_task",
                "queue": "call.child.operators",
                "produces": ["result"],
                "next": "done",
            },
            {"id": "done", "type": "end"},
        ],
    }


def parent() -> dict[str, Any]:
    step = {"type": "service_task", "handler": "call.record", "next": "done"}
    return {
        "format": 1,
        "key": "call.parent",
        "name": "Pedido",
        "protocol_prefix": "PED",
        "nodes": [
            {"id": "begin", "type": "start", "produces": ["amount", "name"], "next": "sub"},
            {
                "id": "sub",
                "type": "call",
                "definition": "call.child",
                "in": {"value": "amount * 2", "who": "name"},
                "out": {"verdict": "result"},
                "produces": ["verdict"],
                "errors": [{"code": "child_failed", "next": "oops", "store": "why"}],
                "timers": [{"id": "late", "duration": "P30D", "next": "oops"}],
                "next": "after",
            },
            {"id": "after", "consumes": ["verdict"], **step},
            {"id": "oops", **step},
            {"id": "done", "type": "end"},
        ],
    }


class Recorder:
    def __init__(self) -> None:
        self.taken: list[tuple[str, Any]] = []

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        self.taken.append((step.node_id, step.data.get("verdict")))
        return StepResult(output={})


class Unreachable:
    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        raise RetryableFailure("partner answered 503", status=503)


def stuck_child() -> dict[str, Any]:
    """A child whose only step lands in the dead letters at its first failure."""
    ask = {"type": "service_task", "handler": "call.unreachable", "failure": {"max_attempts": 1}}
    return {
        "format": 1,
        "key": "call.stuck",
        "name": "Consulta",
        "protocol_prefix": "CON",
        "nodes": [
            {"id": "begin", "type": "start", "produces": ["value", "who"], "next": "ask"},
            {"id": "ask", **ask, "next": "done"},
            {"id": "done", "type": "end"},
        ],
    }


class CallPlugin:
    def __init__(self) -> None:
        self.recorder = Recorder()

    @hookimpl
    def tramita_register_queues(self, registry: Any) -> None:
        registry.add("call.child.operators", "Operators")
        registry.add("call.parent.operators", "Operators")
        registry.add("call.drawn.operators", "Operators")
        registry.add("call.stuck.operators", "Operators")

    @hookimpl
    def tramita_register_handlers(self, registry: Any) -> None:
        registry.add("call.record", self.recorder)
        registry.add("call.unreachable", Unreachable())

    @hookimpl
    def tramita_register_workflows(self, registry: Any) -> None:
        registry.add(child())
        registry.add(parent())


@pytest.fixture
def plugin() -> CallPlugin:
    return CallPlugin()


@pytest.fixture
async def service(
    database_url: str, clock: FixedClock, plugin: CallPlugin
) -> AsyncIterator[WorkflowService]:
    async with booted(database_url, clock, call_test=plugin) as service:
        yield service


async def _call(service: WorkflowService, key: str = "call.parent") -> tuple[str, str]:
    """Start a parent; return its id and its child's."""
    view = await service.engine.start(
        StartRequest(
            definition_key=key,
            context={"amount": 21, "name": "Ana"},
            subject=CASE,
            business_key="PED-1",
            actor=OFFICER,
        )
    )
    assert view.current_nodes == ("sub",)
    (token,) = await service.engine.tokens(view.id)
    return view.id, child_id(view.id, token.id, "sub", token.attempt_group)


async def _answer(service: WorkflowService, child_id: str) -> None:
    await service.engine.signal(child_id, "review", payload={"result": "granted"}, actor=OFFICER)
    await service.delivery.drain()


async def test_the_child_starts_with_the_in_mapping_on_the_version_of_the_call(
    service: WorkflowService, plugin: CallPlugin
) -> None:
    parent_id, kid = await _call(service)
    await service.engine.publisher.publish(child("Parecer v2"), actor=OFFICER)
    later_parent, later_kid = await _call(service)
    view = await service.engine.status(kid)
    assert (view.status, view.definition_version, view.current_nodes) == ("waiting", 1, ("review",))
    assert (view.context, view.parent_instance_id) == ({"value": 42, "who": "Ana"}, parent_id)
    assert (view.subject, view.business_key) == (CASE, None)  # the same case, its own key
    assert (await service.engine.status(later_kid)).definition_version == 2
    await service.delivery.drain()
    assert (await service.engine.status(parent_id)).current_nodes == ("sub",)
    await _answer(service, kid)  # the child finishes on version 1, the parent resumes
    view = await service.engine.status(parent_id)
    assert (view.status, view.context["verdict"]) == ("completed", "granted")
    assert plugin.recorder.taken == [("after", "granted")]
    assert (await service.engine.status(later_parent)).current_nodes == ("sub",)
    stored, rebuilt = await service.engine.replayed_state(parent_id)
    assert stored == rebuilt


async def test_cancelling_the_parent_cancels_the_child(
    service: WorkflowService, plugin: CallPlugin
) -> None:
    parent_id, kid = await _call(service)
    await service.engine.cancel(parent_id, reason="desistência", actor=OFFICER)
    assert (await service.engine.status(kid)).status == "cancelled"
    await service.delivery.drain()  # the child's end reaches a parent that no longer waits
    assert (await service.engine.status(parent_id)).status == "cancelled"
    assert plugin.recorder.taken == []


async def test_cancelling_the_parent_closes_the_childs_open_dead_letter(
    service: WorkflowService, clock: FixedClock
) -> None:
    await service.engine.publisher.publish(stuck_child(), actor=OFFICER)
    calling = parent()
    calling["nodes"][1] = {**calling["nodes"][1], "definition": "call.stuck"}
    await service.engine.publisher.publish(calling, actor=OFFICER)
    parent_id, kid = await _call(service)
    await service.delivery.drain()
    assert (await service.engine.status(kid)).status == "stalled"
    async with service.uow_factory() as uow:
        (letter,) = await uow.dead_letters.all()
    assert letter["instance_id"] == kid
    await service.engine.cancel(parent_id, reason="desistência", actor=OFFICER)
    assert (await service.engine.status(kid)).status == "cancelled"
    async with service.uow_factory() as uow:
        assert await uow.dead_letters.all() == []
        closed = await uow.dead_letters.get(letter["id"])
        trail = await read_trail(uow.conn, "workflow_dead_letter", letter["id"])
    assert closed is not None
    assert (closed["status"], closed["resolved_at"]) == ("cancelled", clock.now())
    assert [(e.entry.action, e.entry.actor) for e in trail] == [
        ("workflow.dead_letter.cancelled", Actor.system("engine"))
    ]


async def test_a_child_that_does_not_complete_takes_the_parents_error_route(
    service: WorkflowService, plugin: CallPlugin
) -> None:
    parent_id, kid = await _call(service)
    await service.engine.cancel(kid, reason="arquivado", actor=OFFICER)
    await service.delivery.drain()
    view = await service.engine.status(parent_id)
    assert view.status == "completed"
    assert view.context["why"] == {"code": "child_failed", "details": {"status": "cancelled"}}
    assert plugin.recorder.taken == [("oops", None)]


async def test_the_interrupting_timer_on_the_call_cancels_the_child_and_takes_its_flow(
    service: WorkflowService, plugin: CallPlugin, clock: FixedClock
) -> None:
    parent_id, kid = await _call(service)
    clock.advance(timedelta(days=31))
    assert await service.engine.tick() == 1
    assert (await service.engine.status(kid)).status == "cancelled"
    await service.delivery.drain()  # the child's end reaches a parent that moved on
    view = await service.engine.status(parent_id)
    assert (view.status, "why" in view.context) == ("completed", False)
    assert plugin.recorder.taken == [("oops", None)]


async def test_the_wait_survives_a_restart_and_the_child_is_started_once(
    database_url: str, clock: FixedClock, plugin: CallPlugin
) -> None:
    async with booted(database_url, clock, call_test=plugin) as first:
        parent_id, kid = await _call(first)
    clock.advance(timedelta(hours=1))  # the sequential ids of the next boot follow the clock
    async with booted(database_url, clock, call_test=plugin) as second:
        await second.delivery.drain()
        async with second.uow_factory() as uow:
            record = await uow.instances.get(kid)
            assert record is not None
            assert await uow.instances.in_flight_on(record.version_id) == [kid]
        await _answer(second, kid)
        view = await second.engine.status(parent_id)
        assert (view.status, view.context["verdict"]) == ("completed", "granted")
    assert plugin.recorder.taken == [("after", "granted")]


async def test_a_parent_waiting_at_a_call_is_not_migrated(service: WorkflowService) -> None:
    parent_id, kid = await _call(service)
    renamed = parent()
    renamed["name"] = "Pedido (revisto)"
    await service.engine.publisher.publish(renamed, actor=OFFICER)
    request = MigrationRequest(
        definition_key="call.parent", from_version=1, to_version=2, instance_ids=(parent_id,)
    )
    report = await Migrator(service.engine, service.uow_factory).migrate(request, actor=OFFICER)
    (blocked,) = report.instances
    (why,) = blocked.blockers
    assert (blocked.result, why.code, why.node_id) == ("blocked", "call_waiting", "sub")
    assert blocker_words(why.code, why.keys, gettext).startswith(
        "o processo aguarda outro processo que chamou"
    )
    await _answer(service, kid)  # the call goes on, on version 1
    view = await service.engine.status(parent_id)
    assert (view.status, view.definition_version) == ("completed", 1)


async def test_a_call_drawn_in_bpmn_publishes_and_runs(
    service: WorkflowService, plugin: CallPlugin
) -> None:
    drawn = export_bpmn({**parent(), "key": "call.drawn"})
    assert drawn.count(b'<bpmn:callActivity id="sub" calledElement="call.child"') == 1
    await service.engine.publisher.publish(import_bpmn(drawn), actor=OFFICER)
    parent_id, kid = await _call(service, "call.drawn")
    await _answer(service, kid)
    view = await service.engine.status(parent_id)
    assert (view.status, view.context["verdict"]) == ("completed", "granted")
    assert plugin.recorder.taken == [("after", "granted")]


async def test_publishing_does_not_need_the_called_definition_but_reaching_the_call_does(
    service: WorkflowService,
) -> None:
    """Boot publishes the registered definitions in any order across plugins, so a call may
    name a definition published later; the transaction that reaches it is refused until then."""
    later = parent()
    later["nodes"][1] = {**later["nodes"][1], "definition": "call.later", "version": 3}
    version, created = await service.engine.publisher.publish(later, actor=OFFICER)
    assert (version.key, version.version, created) == ("call.parent", 2, True)
    with pytest.raises(NotFound) as refused:  # the start's error, in the reaching transaction
        await _call(service)
    assert refused.value.fields == {"definition_key": "call.later", "version": 3}
