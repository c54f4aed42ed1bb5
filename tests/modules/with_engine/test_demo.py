"""``tramita demo``'s module data runs each process to completion while delivery runs."""

from __future__ import annotations

import asyncio
import contextlib
import inspect

from core.app import Platform
from services.workflow.bootstrap import WorkflowService


async def _pump(service: WorkflowService) -> None:
    # What the service's background delivery and tick do in `tramita run`/`demo`.
    while True:
        await service.delivery.drain()
        await service.engine.tick()
        await asyncio.sleep(0.01)


async def test_demo_runs_one_case_of_each_process_and_summarises_it(
    booted: Platform, service: WorkflowService
) -> None:
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
    text = "\n".join(lines)
    assert "act DOM-2026-000001: completed" in text
    assert "published in edition nº 1 of 2026-03-02" in text
    assert "request SIC-2026-000001: completed" in text
    assert "anonymous ombudsman case OUV-2026-000001: answered" in text
    assert "e-mails sent to the SMTP server on 127.0.0.1" in text and ": 6" in text
    assert "news item NOT-2026-000001: completed" in text
