"""Error boundary events in the engine: a handler's ``BusinessError`` takes the node's error
flow (its own code, or the catch-all), an unrouted code stops on a pending task, and a second
delivery of the finished step changes nothing."""

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
from tests.fakes.boot import booted


def flow(key: str, *routes: dict[str, Any]) -> dict[str, Any]:
    return {
        "format": 1,
        "key": key,
        "name": "Charge",
        "protocol_prefix": "CHG",
        "nodes": [
            {"id": "begin", "type": "start", "produces": ["amount"], "next": "charge"},
            {
                "id": "charge",
                "type": "service_task",
                "handler": "billing.charge",
                "consumes": ["amount"],
                "next": "paid",
                "errors": list(routes),
            },
            {
                "id": "notify_refusal",
                "type": "service_task",
                "handler": "billing.notify",
                "consumes": ["refusal"],
                "next": "refused",
            },
            {"id": "paid", "type": "end"},
            {"id": "refused", "type": "end", "result": "rejected"},
        ],
    }


ROUTED = flow(
    "errors.routed", {"code": "payment_refused", "next": "notify_refusal", "store": "refusal"}
)
CATCH_ALL = flow("errors.catch_all", {"code": "*", "next": "notify_refusal", "store": "refusal"})


class Billing:
    """A payment partner that refuses with the code it is told to."""

    def __init__(self) -> None:
        self.refuse_with: str | None = None
        self.notified: list[dict[str, Any]] = []

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        if self.refuse_with is not None:
            raise BusinessError(self.refuse_with, details={"partner_code": "51"})
        return StepResult(output={})


class Notify:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        self.seen.append(step.data["refusal"])
        return StepResult(output={})


class ErrorsPlugin:
    def __init__(self) -> None:
        self.billing = Billing()
        self.notify = Notify()

    @hookimpl
    def tramita_register_queues(self, registry: Any) -> None:
        registry.add("errors.routed.operators", "Operators")
        registry.add("errors.catch_all.operators", "Operators")
        registry.add("errors.bpmn.operators", "Operators")

    @hookimpl
    def tramita_register_handlers(self, registry: Any) -> None:
        registry.add("billing.charge", self.billing)
        registry.add("billing.notify", self.notify)

    @hookimpl
    def tramita_register_workflows(self, registry: Any) -> None:
        registry.add(ROUTED)
        registry.add(CATCH_ALL)


@pytest.fixture
def plugin() -> ErrorsPlugin:
    return ErrorsPlugin()


@pytest.fixture
async def service(
    database_url: str, clock: FixedClock, plugin: ErrorsPlugin
) -> AsyncIterator[WorkflowService]:
    async with booted(database_url, clock, errors_test=plugin) as service:
        yield service


async def _run(service: WorkflowService, key: str) -> str:
    view = await service.engine.start(
        StartRequest(definition_key=key, context={"amount": 120}, actor=Actor(id="u"))
    )
    await service.delivery.drain()
    return view.id


REFUSAL = {"code": "payment_refused", "details": {"partner_code": "51"}}


async def test_a_routed_business_error_takes_the_error_flow(
    service: WorkflowService, plugin: ErrorsPlugin
) -> None:
    plugin.billing.refuse_with = "payment_refused"
    instance_id = await _run(service, "errors.routed")
    view = await service.engine.status(instance_id)
    assert (view.status, view.context["refusal"]) == ("rejected", REFUSAL)
    assert plugin.notify.seen == [REFUSAL]
    history = await service.engine.history(instance_id)
    assert [h.event for h in history].count("step_errored") == 1
    moved = [h for h in history if h.event == "transition.error:payment_refused"]
    assert [(h.from_node, h.to_node) for h in moved] == [("charge", "notify_refusal")]
    async with service.engine._uow() as uow:
        (run,) = [r for r in await uow.steps.of(instance_id) if r.node_id == "charge"]
    assert run.status == "failed" and run.error is not None
    assert (run.error["code"], run.error["details"]) == ("payment_refused", {"partner_code": "51"})


async def test_a_success_takes_the_normal_flow(
    service: WorkflowService, plugin: ErrorsPlugin
) -> None:
    instance_id = await _run(service, "errors.routed")
    view = await service.engine.status(instance_id)
    assert (view.status, "refusal" in view.context) == ("completed", False)


async def test_a_code_without_a_route_stops_on_a_pending_task(
    service: WorkflowService, plugin: ErrorsPlugin
) -> None:
    plugin.billing.refuse_with = "card_expired"
    instance_id = await _run(service, "errors.routed")
    view = await service.engine.status(instance_id)
    assert (view.status, view.current_nodes) == ("stalled", ("charge",))
    (task,) = await service.engine.tasks(instance_id)
    assert task.queue == "errors.routed.operators" and task.outcomes == ("retry", "fail")
    assert plugin.notify.seen == []


async def test_the_catch_all_routes_any_code(
    service: WorkflowService, plugin: ErrorsPlugin
) -> None:
    plugin.billing.refuse_with = "card_expired"
    instance_id = await _run(service, "errors.catch_all")
    view = await service.engine.status(instance_id)
    assert view.status == "rejected"
    assert view.context["refusal"] == {"code": "card_expired", "details": {"partner_code": "51"}}


async def test_a_redelivered_errored_step_is_applied_once(
    service: WorkflowService, plugin: ErrorsPlugin
) -> None:
    plugin.billing.refuse_with = "payment_refused"
    view = await service.engine.start(
        StartRequest(definition_key="errors.routed", context={"amount": 120}, actor=Actor(id="u"))
    )
    async with service.engine._uow() as uow:
        (step,) = await uow.steps.of(view.id)
    assert await service.executor.run_step(step.id) == "failed"
    assert await service.executor.run_step(step.id) == "skipped"
    await service.delivery.drain()
    history = await service.engine.history(view.id)
    assert [h.event for h in history].count("step_errored") == 1
    assert plugin.notify.seen == [REFUSAL]
    assert (await service.engine.status(view.id)).status == "rejected"


async def test_an_error_boundary_drawn_in_bpmn_publishes_and_routes(
    service: WorkflowService, plugin: ErrorsPlugin
) -> None:
    drawn = export_bpmn({**ROUTED, "key": "errors.bpmn"})
    assert b"errorEventDefinition" in drawn
    await service.engine.publisher.publish(import_bpmn(drawn), actor=Actor(id="designer"))
    plugin.billing.refuse_with = "payment_refused"
    instance_id = await _run(service, "errors.bpmn")
    view = await service.engine.status(instance_id)
    assert (view.status, view.context["refusal"]) == ("rejected", REFUSAL)


async def test_a_worker_lost_before_recording_the_error_is_resumed_and_routed_once(
    service: WorkflowService, plugin: ErrorsPlugin, clock: FixedClock
) -> None:
    """A worker took the step and stopped (its lease runs out, nothing recorded): the sweeper
    counts the attempt failed, the retry (same idempotency key) meets the business error and
    the route is taken once. In-process: the lease expires on the fixed clock."""
    plugin.billing.refuse_with = "payment_refused"
    view = await service.engine.start(
        StartRequest(definition_key="errors.routed", context={"amount": 120}, actor=Actor(id="u"))
    )
    async with service.engine._uow() as uow:
        (step,) = await uow.steps.of(view.id)
        taken = await uow.steps.claim(
            step.id,
            owner="lost-worker",
            now=clock.now(),
            lease_until=clock.now() + timedelta(seconds=60),
        )
        await uow.commit()
    assert taken is not None
    await service.delivery.drain()  # the message arrives, but the step is leased: skipped
    clock.advance(timedelta(seconds=61))
    assert await service.delivery.sweeper.sweep() == 1
    clock.advance(timedelta(seconds=5))  # the retry waits its backoff
    await service.delivery.drain()
    assert (await service.engine.status(view.id)).status == "rejected"
    async with service.engine._uow() as uow:
        runs = [r for r in await uow.steps.of(view.id) if r.node_id == "charge"]
    assert [(r.attempt, r.status, (r.error or {}).get("code")) for r in runs] == [
        (1, "failed", "lease_expired"),
        (2, "failed", "payment_refused"),
    ]
    assert len({r.idempotency_key for r in runs}) == 1
    history = await service.engine.history(view.id)
    assert [h.event for h in history].count("step_errored") == 1
    assert plugin.notify.seen == [REFUSAL]
