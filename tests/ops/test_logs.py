"""Logs are JSON lines with identifiers only: personal data never reaches a log line."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import structlog
from opskit import CPF, EMAIL, NAME, publish_personal, start

from core.clock import FixedClock
from core.logging import REDACTED, configure_logging
from core.settings import Settings
from services.workflow.bootstrap import WorkflowService
from tests.fakes.purchase import PurchasePlugin, rejected, retryable

PERSONAL = (CPF, "12345678909", NAME, "Maria", "Silva", EMAIL, "example.org")


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    buffer = io.StringIO()
    configure_logging(Settings(log_level="DEBUG"), stream=buffer)
    yield buffer
    structlog.reset_defaults()


def lines(buffer: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in buffer.getvalue().splitlines() if line.strip()]


async def test_flows_whose_context_holds_cpfs_names_and_emails_log_none_of_them(
    wf: WorkflowService, clock: FixedClock, purchase: PurchasePlugin, captured: io.StringIO
) -> None:
    await publish_personal(wf)
    await start(wf, 500)  # straight through
    purchase.payment.fail_next.extend([retryable(), rejected()])
    await start(wf, 600)  # a retry, then a partner 4xx and the saga
    clock.advance(timedelta(seconds=5))
    await wf.delivery.drain()
    await start(wf, 20_000)  # a human task, left to expire
    clock.advance(timedelta(hours=48))
    await wf.engine.tick()
    await wf.delivery.drain()
    structlog.get_logger("test").info("handler_note", requester=NAME, node=EMAIL, cpf=CPF)
    text = captured.getvalue()
    records = lines(captured)
    steps = [r for r in records if r["event"] == "step_finished"]
    assert len(steps) >= 8 and all(r["correlation_id"] and r["node"] for r in steps)
    assert [p for p in PERSONAL if p in text] == []


def test_a_field_outside_the_allow_list_is_redacted(captured: io.StringIO) -> None:
    structlog.get_logger("t").info("x", requester_name=NAME, correlation_id="abc-1")
    (line,) = lines(captured)
    assert (line["requester_name"], line["correlation_id"]) == (REDACTED, "abc-1")


@pytest.mark.parametrize("value", [EMAIL, CPF, "12345678909", "12.345.678/0001-95", NAME])
def test_personal_looking_values_are_redacted_even_in_allowed_fields(
    captured: io.StringIO, value: str
) -> None:
    structlog.get_logger("t").info("x", node=value)
    (line,) = lines(captured)
    assert line["node"] == REDACTED


def test_exceptions_are_logged_by_type_only(captured: io.StringIO) -> None:
    try:
        raise ValueError(f"bad CPF {CPF} for {EMAIL}")
    except ValueError:
        structlog.get_logger("t").exception("failed")
    (line,) = lines(captured)
    assert line["error_type"] == "ValueError"
    assert CPF not in captured.getvalue() and EMAIL not in captured.getvalue()
