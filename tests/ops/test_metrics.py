"""``/metrics`` after real flows: event counters move by the right amounts, database gauges
tell stuck instances, queue depth, outbox lag and dead letters; labels carry no identifiers."""

from __future__ import annotations

from datetime import timedelta

from opskit import EMAIL, NAME, publish_personal, start
from prometheus_client.parser import text_string_to_metric_families

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from tests.apps import client_for
from tests.fakes.purchase import PurchasePlugin, order, rejected, retryable

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]
WF = "purchase.approval"
_ACTOR = Actor(id="requester-1")
STEPS = {
    "check": "validation",
    "reserve_stock": "service_task",
    "charge_payment": "service_task",
    "notify": "notification",
}


async def scrape_text(wf: WorkflowService) -> str:
    async with client_for(wf.platform) as client:  # type: ignore[arg-type]
        response = await client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return response.text


async def scrape(wf: WorkflowService) -> Samples:
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(await scrape_text(wf))
        for s in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def moved(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


async def test_a_completed_flow_moves_completion_cycle_time_and_step_counters(
    wf: WorkflowService, clock: FixedClock
) -> None:
    before = await scrape(wf)
    await start(wf, 500)
    after = await scrape(wf)
    assert (
        moved(before, after, "workflow_completed_total", workflow_type=WF, status="completed") == 1
    )
    assert moved(before, after, "workflow_cycle_time_seconds_count", workflow_type=WF) == 1
    for step, kind in STEPS.items():
        labels = {"workflow_type": WF, "step": step, "node_type": kind}
        assert (step, moved(before, after, "workflow_step_runs_total", **labels)) == (step, 1)
    assert moved(before, after, "workflow_step_duration_seconds_count", node_type="validation") == 1


async def test_failed_attempts_count_as_failures_of_their_step(
    wf: WorkflowService, clock: FixedClock, purchase: PurchasePlugin
) -> None:
    purchase.payment.fail_next.extend([retryable(), retryable()])
    before = await scrape(wf)
    await start(wf, 500)
    for _ in range(2):
        clock.advance(timedelta(seconds=5))
        await wf.delivery.drain()
    after = await scrape(wf)
    labels = {"workflow_type": WF, "step": "charge_payment"}
    assert moved(before, after, "workflow_step_failures_total", **labels) == 2
    assert moved(before, after, "workflow_step_runs_total", **labels, node_type="service_task") == 3
    assert moved(before, after, "workflow_step_failures_total", workflow_type=WF, step="check") == 0


async def test_a_rejected_flow_is_counted_under_its_final_status(
    wf: WorkflowService, purchase: PurchasePlugin
) -> None:
    purchase.payment.fail_next.append(rejected())
    before = await scrape(wf)
    await start(wf, 500)
    after = await scrape(wf)
    assert moved(before, after, "workflow_completed_total", workflow_type=WF, status="failed") == 1
    assert (
        moved(before, after, "workflow_completed_total", workflow_type=WF, status="completed") == 0
    )


async def test_instances_idle_past_the_timeout_are_reported_stuck(
    wf: WorkflowService, clock: FixedClock
) -> None:
    await start(wf, 20_000)  # waits for a manager
    clock.advance(timedelta(hours=25))
    samples = await scrape(wf)
    assert value(samples, "workflow_stuck_instances", timeout_hours="24") == 1
    assert value(samples, "workflow_stuck_instances", timeout_hours="48") == 0


async def test_dead_letters_come_from_the_database(
    wf: WorkflowService, clock: FixedClock, purchase: PurchasePlugin
) -> None:
    purchase.stock.fail_next.extend([retryable() for _ in range(5)])
    await start(wf, 100)
    for _ in range(4):
        clock.advance(timedelta(seconds=31))
        await wf.delivery.drain()
    assert value(await scrape(wf), "workflow_dead_letters") == 1


async def test_a_retry_waiting_for_its_backoff_is_queue_depth(
    wf: WorkflowService, purchase: PurchasePlugin
) -> None:
    purchase.stock.fail_next.append(retryable())
    await start(wf, 100)
    samples = await scrape(wf)
    assert value(samples, "workflow_queue_depth", queue="integration") == 1


async def test_outbox_lag_is_the_age_of_the_oldest_unrelayed_row(
    wf: WorkflowService, clock: FixedClock
) -> None:
    await wf.engine.start(StartRequest(definition_key=WF, context=order(100), actor=_ACTOR))
    clock.advance(timedelta(seconds=42))
    samples = await scrape(wf)
    assert value(samples, "workflow_outbox_lag_seconds") == 42
    assert value(samples, "workflow_outbox_unsent") >= 1
    assert value(samples, "workflow_metrics_db_up") == 1


async def test_labels_carry_no_instance_ids_protocols_or_personal_values(
    wf: WorkflowService,
) -> None:
    await publish_personal(wf)
    instance_id = await start(wf, 500)
    view = await wf.engine.status(instance_id)
    text = await scrape_text(wf)
    assert "workflow_completed_total" in text
    assert [v for v in (instance_id, view.protocol, NAME, EMAIL) if v in text] == []
