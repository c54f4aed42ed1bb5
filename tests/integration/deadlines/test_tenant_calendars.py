"""Each tenant counts on its own calendar (``TRAMITA_WF_TENANT_CALENDARS``, issue #25 item 1),
on both backends: in a deployment of Vitória and of a city on the national calendar, a request
received on Wednesday 19/08/2026 ends its 20 days on Tuesday 08/09, Vitória's anniversary:
Vitória's case is due on 09/09, the other tenants' on 08/09. A business-days timer skips the
anniversary in Vitória only; the tracked deadline and the audit record Vitória's calendar."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date, datetime
from typing import Any

import pytest

from contracts.errors import ConfigurationError
from contracts.workflow.types import StartRequest
from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.settings import Settings
from services.workflow.bootstrap import WorkflowService, service_of
from tests.integration.deadlines.esic import OFFICER, VITORIA, end_of
from tests.modules.with_engine.test_esic_legal_deadlines import BRT

LEGAL: dict[str, Any] = {
    "format": 1,
    "key": "tenant.legal",
    "name": "Pedido com prazo legal",
    "protocol_prefix": "LEG",
    "nodes": [
        {"id": "receive", "type": "start", "next": "answer"},
        {
            "id": "answer",
            "name": "Answer",
            "type": "user_task",
            "queue": "approval",
            "timers": [
                {"id": "prazo", "deadline": {"rule": "lai.request"}, "next": "late"},
                {"id": "sla", "business_days": 13, "interrupting": False, "next": "late"},
            ],
            "next": "done",
        },
        {"id": "done", "type": "end"},
        {"id": "late", "type": "end", "result": "expired"},
    ],
}


@pytest.fixture
async def wf(
    database_url: str, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[WorkflowService]:
    monkeypatch.setenv("TRAMITA_WF_TENANT_CALENDARS", "vitoria=br-es-vitoria")
    platform = await Platform.boot(
        Settings(database_url=database_url), clock=clock, ids=SequentialIdGen(clock), upgrade=False
    )
    try:
        service = service_of(platform)
        await service.deadlines.publish_calendar(VITORIA, OFFICER)
        await service.engine.publisher.publish(LEGAL, actor=OFFICER)
        yield service
    finally:
        await platform.close()


async def _timers(wf: WorkflowService, clock: FixedClock, tenant: str | None) -> dict[str, Any]:
    clock.set(datetime(2026, 8, 19, 10, 0, tzinfo=BRT))
    view = await wf.engine.start(
        StartRequest(definition_key="tenant.legal", actor=OFFICER, tenant=tenant)
    )
    async with wf.engine._uow() as uow:
        timers = await uow.timers.of(view.id)
    return {"id": view.id, **{t.timer_id: t.due_at for t in timers}}


@pytest.mark.parametrize(
    ("tenant", "due", "sla"),
    [
        ("vitoria", date(2026, 9, 9), date(2026, 9, 9)),
        ("norte", date(2026, 9, 8), date(2026, 9, 8)),
        (None, date(2026, 9, 8), date(2026, 9, 8)),
    ],
)
async def test_each_tenant_counts_on_its_own_calendar(
    wf: WorkflowService, clock: FixedClock, tenant: str | None, due: date, sla: date
) -> None:
    timers = await _timers(wf, clock, tenant)
    assert timers["prazo"] == end_of(due.year, due.month, due.day)
    assert timers["sla"] == end_of(sla.year, sla.month, sla.day)
    (counted,) = await wf.deadlines.counted(timers["id"])
    expected_key = "br-es-vitoria" if tenant == "vitoria" else "br-national"
    assert (counted.calendar_key, counted.nominal_end, counted.due_on) == (
        expected_key,
        date(2026, 9, 8),
        due,
    )
    (tracked,) = await wf.deadlines.show(timers["id"], "prazo")
    assert (tracked.calendar_key, tracked.due_at) == (
        expected_key,
        end_of(due.year, due.month, due.day),
    )


async def test_a_page_counts_a_tenants_days_on_its_calendar(
    wf: WorkflowService, clock: FixedClock
) -> None:
    assert (await wf.deadlines.tenant_calendar("vitoria")).key == "br-es-vitoria"
    assert (await wf.deadlines.tenant_calendar("norte")).key == "br-national"
    assert not (await wf.deadlines.tenant_calendar("vitoria")).is_business_day(date(2026, 9, 8))
    assert (await wf.deadlines.tenant_calendar(None)).is_business_day(date(2026, 9, 8))
    vitoria = await _timers(wf, clock, "vitoria")
    assert (await wf.deadlines.case_calendar(vitoria["id"])).key == "br-es-vitoria"


async def test_a_malformed_entry_stops_the_boot(
    database_url: str, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAMITA_WF_TENANT_CALENDARS", "vitoria")
    with pytest.raises(ConfigurationError) as refused:
        await Platform.boot(
            Settings(database_url=database_url),
            clock=clock,
            ids=SequentialIdGen(clock),
            upgrade=False,
        )
    assert refused.value.fields == {"setting": "tenant_calendars", "entry": "vitoria"}
