"""The citizen's e-mails carry the legally right dates in local time (engine level, SQLite and
PostgreSQL, read from the loopback SMTP server).

The acknowledgement is sent before the analysis task (and its timer) exists: it must state the
very receipt day and due date the engine then counts for the task.
"""

from __future__ import annotations

from datetime import datetime
from email.header import decode_header, make_header
from email.message import Message
from zoneinfo import ZoneInfo

from core.app import Platform
from core.clock import FixedClock
from modules.esic.demo import ANALYST, OMBUDSMAN, ensure_staff
from modules.esic.domain import ManifestationKind
from modules.esic.records import Cases
from services.workflow.bootstrap import WorkflowService
from tests.modules.with_engine.conftest import Inbox
from tests.modules.with_engine.test_esic_flow import received, work

BRT = ZoneInfo("America/Sao_Paulo")


def body(message: Message) -> str:
    payload = message.get_payload(decode=True)
    assert isinstance(payload, bytes)
    return payload.decode("utf-8")


def mail(inbox: Inbox, title: str) -> str:
    (found,) = [
        m for m in inbox.messages if str(make_header(decode_header(m["Subject"]))).endswith(title)
    ]
    return body(found)


async def test_a_filing_at_2330_local_is_acknowledged_with_the_local_days_and_the_counted_due_date(
    booted: Platform, service: WorkflowService, clock: FixedClock, inbox: Inbox
) -> None:
    # Tuesday 01/12/2026 23:30 in Brasília is already 02/12 02:30 UTC. After the 19:00 cut-off:
    # received Wednesday 02/12; 20 days from it end on Tuesday 22/12.
    clock.set(datetime(2026, 12, 1, 23, 30, tzinfo=BRT))
    rec = await received(booted, service)
    assert rec.instance_id is not None
    (task,) = await service.engine.tasks(rec.instance_id)
    assert task.due_at == datetime(2026, 12, 22, 23, 59, 59, tzinfo=BRT)
    text = mail(inbox, "Pedido recebido")
    assert f"Protocolo {rec.protocol}" in text
    assert "Protocolado em 01/12/2026 às 23:30." in text
    assert "Recebido em 02/12/2026." in text
    assert "Prazo para resposta: 22/12/2026 (20 dias corridos; Lei 12.527/2011, art. 11" in text
    assert "02:30" not in text


async def test_the_extension_mail_states_the_new_due_date_and_its_justification(
    booted: Platform, service: WorkflowService, clock: FixedClock, inbox: Inbox
) -> None:
    # Filed Tuesday 01/12/2026 10:00: due Monday 21/12; extended by 10 days: 31/12.
    clock.set(datetime(2026, 12, 1, 10, 0, tzinfo=BRT))
    rec = await received(booted, service)
    assert "Prazo para resposta: 21/12/2026" in mail(inbox, "Pedido recebido")
    clock.set(datetime(2026, 12, 18, 16, 0, tzinfo=BRT))
    await work(
        service,
        rec,
        "analysis_saude",
        ANALYST,
        outcome="extend",
        data={"extension_reason": "Consulta a outro órgão"},
    )
    text = mail(inbox, "Prazo prorrogado")
    assert "Prorrogação de 10 dias corridos, contados do prazo em vigor (21/12/2026)." in text
    assert "Novo prazo para resposta: 31/12/2026." in text
    assert "Justificativa: Consulta a outro órgão" in text
    assert rec.instance_id is not None
    (task,) = [t for t in await service.engine.tasks(rec.instance_id) if t.status == "ready"]
    assert task.due_at == datetime(2026, 12, 31, 23, 59, 59, tzinfo=BRT)


async def test_the_answer_mail_states_the_local_day_answered_and_the_appeal_deadline(
    booted: Platform, service: WorkflowService, clock: FixedClock, inbox: Inbox
) -> None:
    # Answered Monday 28/12/2026 at 23:30 local (29/12 in UTC): the citizen may appeal for 10
    # days from 28/12, until Thursday 07/01/2027.
    clock.set(datetime(2026, 12, 1, 10, 0, tzinfo=BRT))
    rec = await received(booted, service)
    clock.set(datetime(2026, 12, 28, 23, 30, tzinfo=BRT))
    await work(service, rec, "analysis_saude", ANALYST, outcome="answer", data={"answer": "42"})
    text = mail(inbox, "Pedido respondido")
    assert "Data da resposta: 28/12/2026." in text
    assert "Você pode recorrer até 07/01/2027 (Lei 12.527/2011, art. 15, caput)." in text
    assert rec.instance_id is not None
    (task,) = [t for t in await service.engine.tasks(rec.instance_id) if t.status == "ready"]
    assert task.due_at == datetime(2027, 1, 7, 23, 59, 59, tzinfo=BRT)


async def test_the_late_mail_states_until_when_the_citizen_may_complain(
    booted: Platform, service: WorkflowService, clock: FixedClock, inbox: Inbox
) -> None:
    # Received Monday 02/03/2026 09:00: due 23/03 (rolled from Sunday 22/03); late at its last
    # second, the reclamação window counts from 23/03 and ends Thursday 02/04.
    rec = await received(booted, service)
    clock.set(datetime(2026, 3, 23, 23, 59, 59, tzinfo=BRT))
    assert await service.engine.tick() == 1
    await service.delivery.drain()
    text = mail(inbox, "Prazo vencido")
    assert "reclamação à autoridade de monitoramento até 02/04/2026" in text
    assert "Decreto 7.724/2012, art. 22" in text
    assert rec.instance_id is not None


async def test_the_ombudsman_acknowledgement_states_the_thirty_day_due_date(
    booted: Platform, service: WorkflowService, clock: FixedClock, inbox: Inbox
) -> None:
    # Filed Saturday 07/03/2026 at 11:00: received Monday 09/03; 30 days end on Wednesday 08/04.
    await ensure_staff(booted)
    clock.set(datetime(2026, 3, 7, 11, 0, tzinfo=BRT))
    case = await Cases(booted).receive(
        kind=ManifestationKind.COMPLAINT, body="Buraco na rua", name="Ana", email="ana@x.br"
    )
    await service.delivery.drain()
    text = mail(inbox, "Manifestação recebida")
    assert "Protocolado em 07/03/2026 às 11:00." in text
    assert "Recebido em 09/03/2026." in text
    assert "Prazo para resposta: 08/04/2026 (30 dias corridos; Lei 13.460/2017, art. 16)." in text
    assert case.instance_id is not None
    (task,) = await service.engine.tasks(case.instance_id)
    assert task.due_at == datetime(2026, 4, 8, 23, 59, 59, tzinfo=BRT)
    clock.set(datetime(2026, 3, 20, 23, 30, tzinfo=BRT))  # 21/03 02:30 in UTC
    await work(service, case, "answer", OMBUDSMAN, outcome="answer", data={"answer": "Feito"})
    assert "Data da resposta: 20/03/2026." in mail(inbox, "Manifestação respondida")
