"""``DeadlineService.extend`` (``tramita deadline extend``, the API and the page) on the e-SIC
and Ouvidoria legal deadlines, and the jurisdiction's stored calendar the flows count on
(engine level, SQLite and PostgreSQL).

The fixed clock starts on Monday 02/03/2026 at 09:00 in Brasília. An e-SIC request received
that day is due on Monday 23/03 (20 days end on Sunday 22/03); an Ouvidoria manifestation on
Wednesday 01/04 (30 days).
"""

from __future__ import annotations

from datetime import date, datetime

import pytest

from contracts.kernel import Actor
from core.app import Platform
from core.clock import FixedClock
from core.i18n import gettext, using
from modules.esic.demo import ANALYST, OMBUDSMAN, ensure_staff
from modules.esic.domain import CaseStatus, ManifestationKind, RequestStatus
from modules.esic.records import Cases, Record
from services.workflow.bootstrap import WorkflowService
from services.workflow.calendar import CalendarEdit, DatedHoliday, ExtensionRefused
from tests.modules.with_engine.conftest import Inbox
from tests.modules.with_engine.test_esic_flow import received, status, work
from tests.modules.with_engine.test_esic_legal_deadlines import BRT, fires_on, last_second

CLERK = Actor(id=str(ANALYST.id))


async def ready_task_due(service: WorkflowService, rec: Record) -> tuple[str, datetime | None]:
    assert rec.instance_id is not None
    (task,) = [t for t in await service.engine.tasks(rec.instance_id) if t.status == "ready"]
    return task.node_id, task.due_at


def in_portuguese(exc: pytest.ExceptionInfo[ExtensionRefused]) -> str:
    with using("pt_BR"):
        return gettext(exc.value.detail)


async def test_an_esic_deadline_is_extended_once_by_ten_days_from_the_rolled_due_date(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    # Due Monday 23/03 (rolled from Sunday 22/03): 23/03 + 10 = Thursday 02/04.
    rec = await received(booted, service)
    assert rec.instance_id is not None
    clock.set(datetime(2026, 3, 20, 10, 0, tzinfo=BRT))
    view = await service.deadlines.extend(
        rec.instance_id, "deadline", "Consolidação de dados de três secretarias", CLERK
    )
    assert (view.due_at, view.extensions_used, view.rule.max_extensions) == (
        last_second(2026, 4, 2),
        1,
        1,
    )
    assert await ready_task_due(service, rec) == ("analysis_saude", last_second(2026, 4, 2))
    counted = await service.deadlines.counted(rec.instance_id)
    assert (counted[-1].extends, counted[-1].justification) == (
        date(2026, 3, 23),
        "Consolidação de dados de três secretarias",
    )
    await fires_on(service, clock, last_second(2026, 4, 2))
    assert await status(booted, rec) == RequestStatus.EXPIRED


async def test_a_second_esic_extension_is_refused_in_one_portuguese_line(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    rec = await received(booted, service)
    assert rec.instance_id is not None
    await service.deadlines.extend(rec.instance_id, "deadline", "Consolidação", CLERK)
    with pytest.raises(ExtensionRefused) as refused:
        await service.deadlines.extend(rec.instance_id, "deadline", "Outra vez", CLERK)
    assert in_portuguese(refused) == (
        "Este prazo legal já foi prorrogado tanto quanto a sua regra permite."
    )
    (view,) = await service.deadlines.show(rec.instance_id, "deadline")
    assert (view.due_at, view.extensions_used) == (last_second(2026, 4, 2), 1)


async def test_the_flows_extension_after_a_granted_extension_keeps_the_deadline_in_force(
    booted: Platform, service: WorkflowService, inbox: Inbox
) -> None:
    rec = await received(booted, service)
    assert rec.instance_id is not None
    await service.deadlines.extend(rec.instance_id, "deadline", "Consolidação", CLERK)
    await work(
        service, rec, "analysis_saude", ANALYST, outcome="extend", data={"extension_reason": "x"}
    )
    assert await ready_task_due(service, rec) == ("extended_saude", last_second(2026, 4, 2))
    payload = inbox.messages[-1].get_payload(decode=True)
    assert isinstance(payload, bytes)
    assert "Prazo para resposta, já prorrogado: 02/04/2026." in payload.decode("utf-8")
    with pytest.raises(ExtensionRefused):
        await service.deadlines.extend(rec.instance_id, "deadline", "Mais", CLERK)


async def test_the_flows_extension_uses_up_the_esic_extension(
    booted: Platform, service: WorkflowService
) -> None:
    rec = await received(booted, service)
    assert rec.instance_id is not None
    await work(
        service, rec, "analysis_saude", ANALYST, outcome="extend", data={"extension_reason": "x"}
    )
    (view,) = await service.deadlines.show(rec.instance_id, "deadline")
    assert (view.due_at, view.extensions_used) == (last_second(2026, 4, 2), 1)
    with pytest.raises(ExtensionRefused):
        await service.deadlines.extend(rec.instance_id, "deadline", "Mais", CLERK)


async def test_an_appeal_decision_deadline_cannot_be_extended(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    from modules.esic.info_requests import Requests

    rec = await received(booted, service)
    assert rec.instance_id is not None
    await work(service, rec, "analysis_saude", ANALYST, outcome="answer", data={"answer": "42"})
    await Requests(booted).appeal(rec.id, text="incompleto")
    await service.delivery.drain()
    with pytest.raises(ExtensionRefused) as refused:
        await service.deadlines.extend(rec.instance_id, "deadline", "Pedido", CLERK)
    assert in_portuguese(refused) == "Este prazo legal não admite prorrogação."


async def test_an_ombudsman_deadline_is_extended_once_by_thirty_days(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    # Due Wednesday 01/04; + 30 = Friday 01/05, Dia do Trabalhador: Monday 04/05.
    await ensure_staff(booted)
    cases = Cases(booted)
    case = await cases.receive(
        kind=ManifestationKind.COMPLAINT, body="buraco", name="Rui", email="rui@example.org"
    )
    await service.delivery.drain()
    assert case.instance_id is not None
    view = await service.deadlines.extend(
        case.instance_id, "deadline", "Vistoria técnica", Actor(id=str(OMBUDSMAN.id))
    )
    assert (view.due_at, view.extensions_used) == (last_second(2026, 5, 4), 1)
    with pytest.raises(ExtensionRefused) as refused:
        await service.deadlines.extend(
            case.instance_id, "deadline", "Outra", Actor(id=str(OMBUDSMAN.id))
        )
    assert "prorrogado" in in_portuguese(refused)
    await fires_on(service, clock, last_second(2026, 5, 4))
    assert (await cases.get(case.id)).status == CaseStatus.EXPIRED


async def test_a_municipal_closure_moves_the_open_deadline_and_counts_the_next_on_it(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    # Open request due Monday 23/03; the city closes 23/03: it moves to 24/03 on version 2.
    # A request filed on 03/03 after the change ends on 23/03 too and is counted on version 2.
    first = await received(booted, service)
    assert first.instance_id is not None
    clock.set(datetime(2026, 3, 3, 10, 0, tzinfo=BRT))
    revision = await service.deadlines.change_calendar(
        "br-national",
        CalendarEdit(add_closed=(DatedHoliday(name="Decreto 45/2026", on=date(2026, 3, 23)),)),
        reason="Decreto municipal 45/2026",
        actor=CLERK,
    )
    assert (revision.spec.version, revision.recomputed) == (2, 1)
    (moved,) = await service.deadlines.show(first.instance_id, "deadline")
    assert (moved.calendar_version, moved.due_at) == (2, last_second(2026, 3, 24))
    second = await received(booted, service)
    assert second.instance_id is not None
    (counted,) = await service.deadlines.counted(second.instance_id)
    assert (counted.calendar_version, counted.due_on) == (2, date(2026, 3, 24))
    assert counted.moved == [{"day": "2026-03-23", "why": ["Decreto 45/2026"]}]
    (tracked,) = await service.deadlines.show(second.instance_id, "deadline")
    assert (tracked.calendar_version, tracked.due_at) == (2, last_second(2026, 3, 24))
    assert await ready_task_due(service, second) == ("analysis_saude", last_second(2026, 3, 24))
    clock.set(last_second(2026, 3, 23))
    assert await service.engine.tick() == 0
    clock.set(last_second(2026, 3, 24))
    assert await service.engine.tick() == 2
