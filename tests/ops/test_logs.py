"""Logs are JSON lines with identifiers only: personal data never reaches a log line, and the
engine's operational fields (flags, counts, durations, names of nodes, queues, templates) stay
readable. Lines of the standard library's loggers (uvicorn, redis-py, arq) follow the same rules."""

from __future__ import annotations

import io
import json
import logging
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
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    configure_logging(Settings(log_level="DEBUG"), stream=buffer)
    yield buffer
    structlog.reset_defaults()
    root.handlers[:] = handlers
    root.setLevel(level)


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


def test_operational_fields_stay_visible(captured: io.StringIO) -> None:
    structlog.get_logger("t").info(
        "step_finished",
        ok=False,
        queues=["esic.saude", "events"],
        template="esic.received",
        node="analysis_saude",
        queue="esic.saude",
        count=3,
        rows_count=12,
        duration_s=0.25,
        wait_ms=7.5,
        listen=True,
        concurrency=4,
    )
    (line,) = lines(captured)
    assert {k: v for k, v in line.items() if k not in ("level", "timestamp", "event")} == {
        "ok": False,
        "queues": ["esic.saude", "events"],
        "template": "esic.received",
        "node": "analysis_saude",
        "queue": "esic.saude",
        "count": 3,
        "rows_count": 12,
        "duration_s": 0.25,
        "wait_ms": 7.5,
        "listen": True,
        "concurrency": 4,
    }


def test_a_count_or_duration_suffix_keeps_numbers_only(captured: io.StringIO) -> None:
    structlog.get_logger("t").info("x", owner_s=NAME, people_count=True, wait_ms=2)
    (line,) = lines(captured)
    assert (line["owner_s"], line["people_count"], line["wait_ms"]) == (REDACTED, REDACTED, 2)


def test_a_library_line_is_json_and_its_arguments_pass_the_identifier_rule(
    captured: io.StringIO,
) -> None:
    logging.getLogger("redis.connection").warning(
        "Error %s connecting to %s for %s", 111, "127.0.0.1:6379", EMAIL
    )
    (line,) = lines(captured)
    assert line["logger"] == "redis.connection" and line["level"] == "warning"
    assert line["event"] == "Error 111 connecting to 127.0.0.1:6379 for [redacted]"


@pytest.mark.parametrize("text", [f"no user {EMAIL}", f"bad document {CPF}", "x 12345678909"])
def test_a_library_message_holding_a_document_or_email_is_redacted(
    captured: io.StringIO, text: str
) -> None:
    logging.getLogger("arq.worker").error(text)
    (line,) = lines(captured)
    assert line["event"] == REDACTED and line["logger"] == "arq.worker"


def test_a_library_logging_an_object_logs_its_type(captured: io.StringIO) -> None:
    logging.getLogger("arq.jobs").error(ValueError(f"no such person {NAME}"))
    (line,) = lines(captured)
    assert line["event"] == "ValueError"


def test_a_library_exception_is_logged_by_type_only(captured: io.StringIO) -> None:
    try:
        raise ConnectionError(f"lost {EMAIL}")
    except ConnectionError:
        logging.getLogger("uvicorn.error").exception("Exception in ASGI application")
    (line,) = lines(captured)
    assert (line["event"], line["error_type"]) == (
        "Exception in ASGI application",
        "ConnectionError",
    )
    assert EMAIL not in captured.getvalue() and "Traceback" not in captured.getvalue()


def test_an_access_line_has_the_path_and_redacted_query_values(captured: io.StringIO) -> None:
    logging.getLogger("uvicorn.access").info(
        '%s - "%s %s HTTP/%s" %d',
        "203.0.113.9:51000",
        "GET",
        f"/api/v1/people/{CPF}/cases?q={NAME}&cpf={CPF}&limit=5",
        "1.1",
        200,
    )
    (line,) = lines(captured)
    assert {k: v for k, v in line.items() if k != "timestamp"} == {
        "event": "http_request",
        "logger": "uvicorn.access",
        "level": "info",
        "method": "GET",
        "path": "/api/v1/people/[redacted]/cases",
        "query": "q=[redacted]&cpf=[redacted]&limit=[redacted]",
        "status_code": 200,
        "http_version": "1.1",
    }
    assert "203.0.113.9" not in captured.getvalue()  # a client's address is personal data


def test_library_info_lines_are_left_out_below_debug(captured: io.StringIO) -> None:
    configure_logging(Settings(log_level="INFO"), stream=captured)
    logging.getLogger("arq.worker").info("job started")
    logging.getLogger("uvicorn.error").info("Application startup complete.")
    assert [line["logger"] for line in lines(captured)] == ["uvicorn.error"]
