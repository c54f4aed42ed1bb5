"""``tramita demo``'s module data runs each process to completion while delivery runs."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from datetime import UTC, datetime
from pathlib import Path

import pytest

from core.app import Platform
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService


async def _pump(service: WorkflowService) -> None:
    # What the service's background delivery and tick do in `tramita run`/`demo`.
    while True:
        await service.delivery.drain()
        await service.engine.tick()
        await asyncio.sleep(0.01)


async def _demo(booted: Platform, service: WorkflowService) -> str:
    pump = asyncio.create_task(_pump(service))
    lines: list[str] = []
    try:
        for _plugin, pending in booted.host.demo_data(booted):
            assert inspect.isawaitable(pending)
            lines.extend(await pending)
    finally:
        pump.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pump
    return "\n".join(lines)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo writes its test certificate and the edition's PDF here, not in the checkout."""
    monkeypatch.setenv("TRAMITA_DATA_DIR", str(tmp_path))
    return tmp_path


async def test_demo_runs_one_case_of_each_process_and_summarises_it(
    booted: Platform, service: WorkflowService, tmp_path: Path
) -> None:
    text = await _demo(booted, service)
    assert "act DOM-2026-000001: completed" in text
    assert "published in edition nº 1 of 03/03/2026" in text
    assert "edition nº 1 signed: " in text and "edicao-1.pdf" in text
    assert "signature: valid; signer" in text and "TEST CERTIFICATE" in text
    (pdf,) = (tmp_path / "diario").glob("edicao-1.pdf")
    assert pdf.read_bytes().startswith(b"%PDF")
    assert "request SIC-2026-000001: completed" in text
    # Filed Monday 02/03/2026 09:00 in Brasília: 20 days end on Sunday 22/03, so Monday 23/03;
    # the extension counts 10 days from 23/03.
    assert "filed 02/03/2026 09:00 (America/Sao_Paulo)" in text
    assert "answer due (LAI art. 11, 20 days): 23/03/2026" in text
    assert "extended (+10 days from the deadline in force): 02/04/2026" in text
    assert "anonymous ombudsman case OUV-2026-000001: answered" in text
    assert "e-mails sent to the SMTP server on 127.0.0.1" in text and ": 6" in text
    assert "news item NOT-2026-000001: completed" in text


async def test_an_esic_request_filed_on_tuesday_1_december_2026_is_due_monday_21_december(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    clock.set(datetime(2026, 12, 1, 15, 0, tzinfo=UTC))  # 12:00 in Brasília
    text = await _demo(booted, service)
    assert "answer due (LAI art. 11, 20 days): 21/12/2026" in text
    assert "extended (+10 days from the deadline in force): 31/12/2026" in text
