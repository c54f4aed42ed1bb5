"""e-SIC and Ouvidoria timers fire on the legal local day (engine level, SQLite and PostgreSQL).

The fixed clock starts on Monday 02/03/2026 at 09:00 in Brasília (12:00 UTC). Each test moves
it to the last second before the legal due instant (23:59:58 local on the due day, which is
already the next day in UTC) and checks nothing fired, then to 23:59:59 local and checks the
timer fired.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from contracts.kernel import Actor
from core.app import Platform
from core.clock import FixedClock
from modules.esic.demo import ANALYST, AUTHORITY, OMBUDSMAN, ensure_staff
from modules.esic.domain import CaseStatus, ManifestationKind, RequestStatus
from modules.esic.info_requests import Requests
from modules.esic.records import Cases
from services.workflow.bootstrap import WorkflowService
from services.workflow.calendar import DatedHoliday
from tests.modules.with_engine.conftest import Inbox
from tests.modules.with_engine.test_esic_flow import received, status, work

BRT = ZoneInfo("America/Sao_Paulo")


def last_second(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, 23, 59, 59, tzinfo=BRT)


async def fires_on(service: WorkflowService, clock: FixedClock, due: datetime) -> None:
    """Nothing fires the day before or a second before ``due``; one timer fires at ``due``."""
    clock.set(due - timedelta(days=1))
    assert await service.engine.tick() == 0
    clock.set(due - timedelta(seconds=1))
    assert await service.engine.tick() == 0
    clock.set(due)
    assert await service.engine.tick() == 1
    await service.delivery.drain()


async def test_unanswered_request_expires_at_the_end_of_the_twentieth_day_rolled_to_monday(
    booted: Platform, service: WorkflowService, clock: FixedClock, inbox: Inbox
) -> None:
    # Received Monday 02/03; 20 days end on Sunday 22/03, so the body has until Monday 23/03.
    rec = await received(booted, service)
    assert rec.instance_id is not None
    (task,) = await service.engine.tasks(rec.instance_id)
    assert task.due_at == last_second(2026, 3, 23)
    await fires_on(service, clock, last_second(2026, 3, 23))
    assert await status(booted, rec) == RequestStatus.EXPIRED
    assert inbox.subjects()[-1].endswith("Prazo vencido")
    payload = inbox.messages[-1].get_payload(decode=True)
    assert isinstance(payload, bytes)
    assert "reclamação" in payload.decode("utf-8")


async def test_a_complaint_for_the_missing_answer_is_decided_within_five_days(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    # Not answered by 23/03; reclamação on Wednesday 25/03 at 10:00: decision due 30/03.
    rec = await received(booted, service)
    await fires_on(service, clock, last_second(2026, 3, 23))
    clock.set(datetime(2026, 3, 25, 10, 0, tzinfo=BRT))
    requests = Requests(booted)
    await requests.complain(rec.id, text="Sem resposta no prazo")
    await service.delivery.drain()
    assert await status(booted, rec) == RequestStatus.COMPLAINT
    assert rec.instance_id is not None
    (task,) = [t for t in await service.engine.tasks(rec.instance_id) if t.status == "ready"]
    assert (task.node_id, task.due_at) == ("complaint", last_second(2026, 3, 30))
    await work(service, rec, "complaint", AUTHORITY, data={"answer": "Resposta enviada"})
    assert await status(booted, rec) == RequestStatus.ANSWERED


async def test_without_a_complaint_in_ten_days_the_late_request_ends_expired(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    # Late on 23/03 at 23:59:59: the window counts from 23/03 and ends Thursday 02/04.
    rec = await received(booted, service)
    await fires_on(service, clock, last_second(2026, 3, 23))
    await fires_on(service, clock, last_second(2026, 4, 2))
    assert rec.instance_id is not None
    assert (await service.engine.status(rec.instance_id)).status == "expired"
    assert await status(booted, rec) == RequestStatus.EXPIRED


async def test_the_extension_counts_ten_days_from_the_rolled_due_date(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    # Due Monday 23/03 (rolled from Sunday 22/03); extended: 23/03 + 10 = Thursday 02/04.
    rec = await received(booted, service)
    await work(
        service, rec, "analysis_saude", ANALYST, outcome="extend", data={"extension_reason": "x"}
    )
    assert rec.instance_id is not None
    (task,) = [t for t in await service.engine.tasks(rec.instance_id) if t.status == "ready"]
    assert (task.node_id, task.due_at) == ("extended_saude", last_second(2026, 4, 2))
    await fires_on(service, clock, last_second(2026, 4, 2))
    assert await status(booted, rec) == RequestStatus.EXPIRED


async def test_answered_request_closes_when_the_ten_day_appeal_window_ends(
    booted: Platform, service: WorkflowService, clock: FixedClock, inbox: Inbox
) -> None:
    # Answered Monday 02/03 at 09:00: the window counts from that day and ends Thursday 12/03.
    rec = await received(booted, service)
    await work(service, rec, "analysis_saude", ANALYST, outcome="answer", data={"answer": "42"})
    assert await status(booted, rec) == RequestStatus.ANSWERED
    await fires_on(service, clock, last_second(2026, 3, 12))
    assert await status(booted, rec) == RequestStatus.CLOSED
    assert [s.split("] ")[1] for s in inbox.subjects()] == [
        "Pedido recebido",
        "Pedido respondido",
        "Pedido encerrado",
    ]
    labels = [e.label for e in await Requests(booted).public_timeline(rec.protocol or "")]
    assert labels == ["Recebido", "Em análise", "Respondido", "Encerrado"]


async def test_an_appeal_decision_is_due_five_days_after_the_appeal_is_received(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    # Appeal filed Friday 06/03 at 20:00 (after 19:00): received Monday 09/03, due Saturday
    # 14/03, rolled to Monday 16/03.
    rec = await received(booted, service)
    await work(service, rec, "analysis_saude", ANALYST, outcome="answer", data={"answer": "42"})
    clock.set(datetime(2026, 3, 6, 20, 0, tzinfo=BRT))
    await Requests(booted).appeal(rec.id, text="incompleto")
    await service.delivery.drain()
    assert rec.instance_id is not None
    (task,) = [t for t in await service.engine.tasks(rec.instance_id) if t.status == "ready"]
    assert (task.node_id, task.due_at) == ("appeal_1", last_second(2026, 3, 16))
    await fires_on(service, clock, last_second(2026, 3, 16))
    assert await status(booted, rec) == RequestStatus.EXPIRED


async def test_ombudsman_extension_ending_on_labour_day_moves_to_the_next_monday(
    booted: Platform, service: WorkflowService, clock: FixedClock, inbox: Inbox
) -> None:
    # Received 02/03: 30 days end Wednesday 01/04; extended by 30 from 01/04: Friday 01/05,
    # Dia do Trabalhador, so the deadline is Monday 04/05.
    await ensure_staff(booted)
    cases = Cases(booted)
    case = await cases.receive(
        kind=ManifestationKind.COMPLAINT, body="buraco", name="Rui", email="rui@example.org"
    )
    await service.delivery.drain()
    assert case.instance_id is not None
    (task,) = await service.engine.tasks(case.instance_id)
    assert task.due_at == last_second(2026, 4, 1)
    await work(
        service, case, "answer", OMBUDSMAN, outcome="extend", data={"extension_reason": "vistoria"}
    )
    assert (await cases.get(case.id)).status == CaseStatus.EXTENDED
    await fires_on(service, clock, last_second(2026, 5, 4))
    assert (await cases.get(case.id)).status == CaseStatus.EXPIRED
    assert len(inbox.messages) == 3


async def test_every_counted_deadline_is_stored_with_filing_receipt_and_explanation(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    # Filed Saturday 07/03 at 10:00: received Monday 09/03; 20 days end Sunday 29/03 -> 30/03.
    clock.set(datetime(2026, 3, 7, 10, 0, tzinfo=BRT))
    rec = await received(booted, service)
    assert rec.instance_id is not None
    (counted,) = await service.deadlines.counted(rec.instance_id)
    assert (counted.node, counted.timer, counted.rule) == (
        "analysis_saude",
        "deadline",
        "lai.request",
    )
    assert counted.filed_at == datetime(2026, 3, 7, 10, 0, tzinfo=BRT)
    assert counted.received_at == datetime(2026, 3, 9, 0, 0, tzinfo=BRT)
    assert (counted.nominal_end, counted.due_on) == (date(2026, 3, 29), date(2026, 3, 30))
    assert counted.moved == [{"day": "2026-03-29", "why": ["fim de semana"]}]
    assert counted.explanation[1] == (
        "Protocolado em dia sem expediente: considerado recebido em 09/03/2026."
    )
    assert counted.explanation[-1] == "Vence em 30/03/2026, às 23:59 (horário local)."


async def test_a_suspended_request_deadline_pays_back_the_suspended_days(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    # Received 02/03 (due 23/03). Suspended Thursday 05/03 (3 days used, 17 left), resumed
    # Wednesday 25/03, after the original due date: 25/03 + 17 = Saturday 11/04, so Monday
    # 13/04. While suspended the timer cannot fire.
    rec = await received(booted, service)
    assert rec.instance_id is not None
    clerk = Actor(id=str(ANALYST.id))
    (view,) = await service.deadlines.show(rec.instance_id, "deadline")
    assert view.due_at == last_second(2026, 3, 23)
    clock.set(datetime(2026, 3, 5, 10, 0, tzinfo=BRT))
    suspended = await service.deadlines.suspend(
        rec.instance_id,
        "deadline",
        "Pedido de esclarecimento ao requerente",
        clerk,
        legal_basis="Decreto 7.724/2012, art. 12",
    )
    assert (suspended.status, suspended.due_at, suspended.remaining_units) == (
        "suspended",
        None,
        17,
    )
    (task,) = await service.engine.tasks(rec.instance_id)
    assert task.due_at is None
    clock.set(last_second(2026, 3, 24))
    assert await service.engine.tick() == 0
    clock.set(datetime(2026, 3, 25, 10, 0, tzinfo=BRT))
    resumed = await service.deadlines.resume(rec.instance_id, "deadline", clerk)
    assert resumed.due_at == last_second(2026, 4, 13)
    (task,) = await service.engine.tasks(rec.instance_id)
    assert task.due_at == last_second(2026, 4, 13)
    await fires_on(service, clock, last_second(2026, 4, 13))
    assert await status(booted, rec) == RequestStatus.EXPIRED


async def test_a_closure_decreed_mid_deadline_moves_the_open_request_and_records_the_version(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    # Due Monday 23/03; a decree closes the offices on 23/03: the deadline moves to 24/03.
    rec = await received(booted, service)
    assert rec.instance_id is not None
    clock.set(datetime(2026, 3, 10, 10, 0, tzinfo=BRT))
    admin = Actor(id=str(ANALYST.id))
    spec = await service.deadlines.revise_calendar(
        "br-national",
        add_closed=[DatedHoliday(name="Ponto facultativo — Decreto 45/2026", on=date(2026, 3, 23))],
        reason="Decreto municipal 45/2026",
        actor=admin,
    )
    (view,) = await service.deadlines.recompute_open("br-national", admin)
    assert (view.calendar_version, view.due_at) == (spec.version, last_second(2026, 3, 24))
    (task,) = await service.engine.tasks(rec.instance_id)
    assert task.due_at == last_second(2026, 3, 24)
    await fires_on(service, clock, last_second(2026, 3, 24))
    assert await status(booted, rec) == RequestStatus.EXPIRED


async def test_an_extended_request_can_be_suspended_before_the_extension_starts(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    # Extended on 02/03: due 02/04 (23/03 rolled + 10), counted from 23/03. Suspended on
    # Thursday 05/03, resumed Wednesday 25/03: the 20 suspended days are paid back, 22/04.
    rec = await received(booted, service)
    assert rec.instance_id is not None
    await work(
        service, rec, "analysis_saude", ANALYST, outcome="extend", data={"extension_reason": "x"}
    )
    clerk = Actor(id=str(ANALYST.id))
    (view,) = await service.deadlines.show(rec.instance_id)
    assert view.due_at == last_second(2026, 4, 2)
    clock.set(datetime(2026, 3, 5, 10, 0, tzinfo=BRT))
    suspended = await service.deadlines.suspend(
        rec.instance_id,
        view.name,
        "Pedido de esclarecimento ao requerente",
        clerk,
        legal_basis="Decreto 7.724/2012, art. 12",
    )
    assert (suspended.status, suspended.due_at) == ("suspended", None)
    clock.set(datetime(2026, 3, 25, 10, 0, tzinfo=BRT))
    resumed = await service.deadlines.resume(rec.instance_id, view.name, clerk)
    assert resumed.due_at == last_second(2026, 4, 22)
    await fires_on(service, clock, last_second(2026, 4, 22))
    assert await status(booted, rec) == RequestStatus.EXPIRED
