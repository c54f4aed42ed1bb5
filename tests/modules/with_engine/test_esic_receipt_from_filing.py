"""The receipt rule applies to the filing (the instance's start), not to when the task that
carries the deadline opens: a request filed on Friday 06/03/2026 at 18:50 in Brasília whose
acknowledgement e-mail is only sent at 19:10 (its task opens then) is received on Friday 06/03,
so its 20 days end on Thursday 26/03 — counted from the task's opening it would be received on
Monday 09/03 and due on Monday 30/03. Both instants are stored and told (engine level, SQLite
and PostgreSQL)."""

from __future__ import annotations

from datetime import date, datetime

from core.app import Platform
from core.clock import FixedClock
from modules.esic.demo import ensure_staff
from modules.esic.domain import CaseStatus, ManifestationKind
from modules.esic.info_requests import Requests
from modules.esic.records import Cases
from services.workflow.bootstrap import WorkflowService
from tests.modules.with_engine.test_esic_legal_deadlines import BRT, fires_on, last_second

FILED = datetime(2026, 3, 6, 18, 50, tzinfo=BRT)
TASK_OPENS = datetime(2026, 3, 6, 19, 10, tzinfo=BRT)


async def test_an_esic_request_filed_before_19h_is_received_that_day_though_its_task_opens_later(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    await ensure_staff(booted)
    clock.set(FILED)
    rec = await Requests(booted).receive(
        sector="saude", question="Quantos leitos?", name="Ana", email="ana@example.org"
    )
    clock.set(TASK_OPENS)
    await service.delivery.drain()
    assert rec.instance_id is not None
    (task,) = await service.engine.tasks(rec.instance_id)
    assert task.created_at == TASK_OPENS
    (counted,) = await service.deadlines.counted(rec.instance_id)
    assert counted.filed_at == FILED
    assert (counted.received_at, counted.received_on) == (FILED, date(2026, 3, 6))
    assert counted.due_on == date(2026, 3, 26)
    assert counted.explanation[:2] == [
        "Protocolado em 06/03/2026 às 18:50.",
        "Recebido em 06/03/2026.",
    ]
    assert task.due_at == last_second(2026, 3, 26)
    await fires_on(service, clock, last_second(2026, 3, 26))


async def test_an_ombudsman_case_is_received_on_its_filing_day_though_its_task_opens_later(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    # Filed Friday 06/03 18:50: received that day, 30 days end on Sunday 05/04 -> Monday 06/04
    # (from 19:10 it would be received Monday 09/03 and due on Wednesday 08/04).
    await ensure_staff(booted)
    clock.set(FILED)
    case = await Cases(booted).receive(
        kind=ManifestationKind.COMPLAINT, body="buraco", name="Rui", email="rui@example.org"
    )
    clock.set(TASK_OPENS)
    await service.delivery.drain()
    assert case.instance_id is not None
    (counted,) = await service.deadlines.counted(case.instance_id)
    assert (counted.filed_at, counted.received_on) == (FILED, date(2026, 3, 6))
    assert counted.due_on == date(2026, 4, 6)
    (task,) = await service.engine.tasks(case.instance_id)
    assert task.due_at == last_second(2026, 4, 6)
    await fires_on(service, clock, last_second(2026, 4, 6))  # not the day before, then it fires
    assert (await Cases(booted).get(case.id)).status == CaseStatus.EXPIRED
