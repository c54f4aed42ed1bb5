"""What the operations pages read (step runs of an instance, stuck instances) on both backends,
and the pure helpers that turn it into cells, without a browser."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.app import Platform
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService, service_of
from services.workflow.handles import handles_of
from services.workflow.persistence.ops_reads import grouped_by_node
from services.workflow.reads.api_reads import ApiReads
from services.workflow.reads.operations import StepRunView
from services.workflow.ui.instances import MAX_ERROR_DETAIL, error_parts
from services.workflow.ui.stuck import DEFAULT_HOURS, fmt_age, hours_error, parse_hours
from tests.conftest import T0
from tests.e2e.api.conftest import boot_platform
from tests.fakes.purchase import PurchasePlugin, order, retryable

OPERATOR = Actor(kind="user", id="operator")


@pytest.fixture
async def booted(
    database_url: str, clock: FixedClock, purchase: PurchasePlugin
) -> AsyncIterator[Platform]:
    platform = await boot_platform(database_url, clock, purchase)
    yield platform
    await platform.close()


@pytest.fixture
def purchase() -> PurchasePlugin:
    return PurchasePlugin()


def _reads(platform: Platform) -> ApiReads:
    reads: ApiReads = handles_of(platform).reads
    return reads


async def _start(service: WorkflowService, value: float) -> str:
    view = await service.engine.start(
        StartRequest(definition_key="purchase.approval", context=order(value))
    )
    await service.delivery.drain()
    return view.id


async def test_a_retried_step_shows_each_attempt_and_the_error_of_the_failed_one(
    booted: Platform, clock: FixedClock, purchase: PurchasePlugin
) -> None:
    service = service_of(booted)
    purchase.stock.fail_next.append(retryable())
    instance_id = await _start(service, 500)
    clock.advance(timedelta(seconds=31))
    await service.delivery.drain()

    runs = await _reads(booted).step_runs(instance_id)

    stock = [r for r in runs if r.node_id == "reserve_stock"]
    assert [(r.attempt, r.attempt_group, r.status) for r in stock] == [
        (1, 1, "failed"),
        (2, 1, "succeeded"),
    ]
    assert stock[0].error is not None and stock[0].error["type"] == "RetryableFailure"
    assert stock[1].error is None and stock[1].finished_at is not None
    assert not any(r.has_checkpoint for r in runs)
    assert [r.node_id for r in runs] == [
        "check",
        "reserve_stock",
        "reserve_stock",
        "charge_payment",
        "notify",
    ]


def _run(node: str, attempt: int, group: int = 1, kind: str = "step") -> StepRunView:
    return StepRunView(
        id=f"{node}-{kind}-{group}-{attempt}",
        node_id=node,
        kind=kind,
        queue="integration",
        attempt_group=group,
        attempt=attempt,
        status="succeeded",
        created_at=T0,
        started_at=None,
        finished_at=None,
        lease_expires_at=None,
        error=None,
        has_checkpoint=False,
    )


def test_runs_are_grouped_by_node_in_first_run_order_then_by_group_and_attempt() -> None:
    # Oldest first as stored: two parallel branches interleave, one node is entered twice.
    stored = [
        _run("a", 1),
        _run("b", 1),
        _run("a", 2),
        _run("b", 2),
        _run("a", 1, group=2),
        _run("a", 1, kind="compensation"),
    ]
    assert [r.id for r in grouped_by_node(stored)] == [
        "a-step-1-1",
        "a-step-1-2",
        "a-step-2-1",
        "a-compensation-1-1",
        "b-step-1-1",
        "b-step-1-2",
    ]


async def test_step_runs_of_an_unknown_instance_are_empty(booted: Platform) -> None:
    assert await _reads(booted).step_runs("019cae6b-6600-7000-8000-0000000000ff") == []


async def test_stuck_lists_open_instances_older_than_the_threshold_longest_first(
    booted: Platform, clock: FixedClock
) -> None:
    service = service_of(booted)
    oldest = await _start(service, 20_000)  # waits for a manager
    cancelled = await _start(service, 20_000)
    await service.engine.cancel(cancelled, reason="duplicate", actor=OPERATOR)
    clock.advance(timedelta(hours=1))
    older = await _start(service, 30_000)
    clock.advance(timedelta(hours=2))
    recent = await _start(service, 40_000)
    clock.advance(timedelta(minutes=30))
    now = clock.now()

    stuck = await _reads(booted).stuck_instances(now - timedelta(hours=1), 10)

    assert [s.id for s in stuck] == [oldest, older]
    assert recent not in [s.id for s in stuck]
    assert stuck[0].last_progress_at == now - timedelta(hours=3, minutes=30)
    assert stuck[0].status == "waiting" and stuck[0].current_nodes == ("manager_approval",)
    assert stuck[0].definition_key == "purchase.approval" and stuck[0].protocol
    assert [s.id for s in await _reads(booted).stuck_instances(now - timedelta(hours=3), 10)] == [
        oldest
    ]
    assert await _reads(booted).stuck_instances(now - timedelta(hours=4), 10) == []
    assert len(await _reads(booted).stuck_instances(now, 1)) == 1


@pytest.mark.parametrize(
    ("raw", "hours"),
    [(None, DEFAULT_HOURS), ("", DEFAULT_HOURS), ("1", 1), (" 48 ", 48), ("168", 168)],
)
def test_the_threshold_takes_the_offered_choices(raw: str | None, hours: int) -> None:
    assert parse_hours(raw) == hours


@pytest.mark.parametrize("raw", ["abc", "0", "-24", "25", "1e3", "24.5"])
def test_a_threshold_outside_the_choices_is_refused(raw: str) -> None:
    assert parse_hours(raw) is None


def test_the_threshold_error_names_the_value_and_the_choices() -> None:
    message = hours_error("x" * 50)
    assert "x" * 19 + "…" in message and "x" * 20 not in message
    assert "1 hora" in message and "7 dias" in message


def test_ages_read_in_days_hours_or_minutes() -> None:
    assert fmt_age(timedelta(days=2, hours=3, minutes=5)) == "2 d 3 h"
    assert fmt_age(timedelta(hours=5, minutes=7)) == "5 h 7 min"
    assert fmt_age(timedelta(minutes=42, seconds=59)) == "42 min"


def test_an_error_cell_shows_the_class_and_truncated_identifiers() -> None:
    kind, detail = error_parts({"type": "RetryableFailure", "problem": "retryable", "status": 503})
    assert (kind, detail) == ("RetryableFailure", "problem=retryable; status=503")
    _, long = error_parts({"type": "X", "details": "y" * 500})
    assert len(long) == MAX_ERROR_DETAIL and long.endswith("…")
    assert error_parts(None) == ("", "")
