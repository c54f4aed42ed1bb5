"""e-SIC and Ouvidoria end to end on the engine, with e-mails read from a loopback SMTP server."""

from __future__ import annotations

import pytest

from contracts.errors import ValidationFailed
from core.app import Platform
from modules.esic.demo import ANALYST, AUTHORITY, MINISTER, OMBUDSMAN, ensure_staff
from modules.esic.domain import CaseStatus, ManifestationKind, RequestStatus
from modules.esic.info_requests import Requests
from modules.esic.records import Cases, Record
from services.workflow.bootstrap import WorkflowService
from tests.modules.with_engine.conftest import Inbox


async def received(booted: Platform, service: WorkflowService, sector: str = "saude") -> Record:
    await ensure_staff(booted)
    rec = await Requests(booted).receive(
        sector=sector, question="Quantos leitos?", name="Ana", email="ana@example.org"
    )
    await service.delivery.drain()
    return rec


async def work(
    service: WorkflowService, rec: Record, node: str, actor: object, **kw: object
) -> None:
    assert rec.instance_id is not None
    (task,) = [
        t
        for t in await service.engine.tasks(rec.instance_id)
        if t.node_id == node and t.status == "ready"
    ]
    await service.engine.claim(task.id, actor=actor)  # type: ignore[arg-type]
    await service.engine.complete(task.id, actor=actor, **kw)  # type: ignore[arg-type]
    await service.delivery.drain()


async def status(booted: Platform, rec: Record) -> str:
    return (await Requests(booted).get(rec.id)).status


async def test_request_is_routed_to_its_sector_queue_and_the_citizen_is_mailed(
    booted: Platform, service: WorkflowService, inbox: Inbox
) -> None:
    rec = await received(booted, service, "educacao")
    assert rec.instance_id is not None
    (task,) = await service.engine.tasks(rec.instance_id)
    assert (task.node_id, task.queue) == ("analysis_educacao", "esic.setor.educacao")
    assert await status(booted, rec) == RequestStatus.ANALYSIS
    assert inbox.subjects() == [f"[{rec.protocol}] Pedido recebido"]
    assert inbox.messages[0]["To"] == "ana@example.org"


async def test_extension_then_both_appeal_instances_then_closure(
    booted: Platform, service: WorkflowService, inbox: Inbox
) -> None:
    rec = await received(booted, service)
    requests = Requests(booted)
    await work(
        service,
        rec,
        "analysis_saude",
        ANALYST,
        outcome="extend",
        data={"extension_reason": "três hospitais"},
    )
    assert await status(booted, rec) == RequestStatus.EXTENDED
    await work(service, rec, "extended_saude", ANALYST, data={"answer": "42"})
    await requests.appeal(rec.id, text="incompleto")
    await service.delivery.drain()
    assert await status(booted, rec) == RequestStatus.APPEAL_1
    await work(service, rec, "appeal_1", AUTHORITY, data={"appeal_answer": "80%"})
    assert await status(booted, rec) == RequestStatus.APPEAL_1_ANSWERED
    await requests.appeal(rec.id, text="ainda incompleto")
    await service.delivery.drain()
    assert await status(booted, rec) == RequestStatus.APPEAL_2
    await work(service, rec, "appeal_2", MINISTER, data={"appeal_answer": "série"})
    assert await status(booted, rec) == RequestStatus.CLOSED
    assert len(inbox.messages) == 6


async def test_a_redelivered_notification_is_not_sent_twice(
    booted: Platform, service: WorkflowService, inbox: Inbox
) -> None:
    from modules.esic.notify import handlers
    from modules.esic.plugin import RUNTIME

    rec = await received(booted, service)
    assert rec.instance_id is not None
    async with service.engine._uow() as uow:
        (run,) = [r for r in await uow.steps.of(rec.instance_id) if r.node_id == "notify_received"]
    notifier = handlers(RUNTIME)["esic.notify"]
    from contracts.workflow.types import StepInput

    step = StepInput(
        instance_id=rec.instance_id,
        protocol=rec.protocol or "",
        definition_key="esic.pedido",
        node_id="notify_received",
        attempt_group=run.attempt_group,
        attempt=2,
        idempotency_key=run.idempotency_key,
        reference=rec.protocol or "",
        data={"request_id": rec.id},
        template="esic.received",
    )
    await notifier.execute(step, control=None)  # type: ignore[arg-type]
    assert len(inbox.messages) == 1


async def test_anonymous_ombudsman_case_stores_no_contact_and_mails_nobody(
    booted: Platform, service: WorkflowService, inbox: Inbox
) -> None:
    await ensure_staff(booted)
    cases = Cases(booted)
    case = await cases.receive(kind=ManifestationKind.DENUNCIATION, body="obra parada")
    await service.delivery.drain()
    assert await cases.contact(case.id) is None
    await work(service, case, "answer", OMBUDSMAN, outcome="answer", data={"answer": "ok"})
    assert (await cases.get(case.id)).status == CaseStatus.ANSWERED
    assert inbox.messages == []


async def test_module_status_matches_the_instance_after_every_step(
    booted: Platform, service: WorkflowService
) -> None:
    from modules.esic.workflows import REQUEST_NODES

    rec = await received(booted, service)
    requests = Requests(booted)

    async def consistent() -> None:
        view = await service.engine.status(rec.instance_id or "")
        entered = [h.to_node for h in await service.engine.history(view.id) if h.to_node]
        legal = [REQUEST_NODES[n] for n in entered if n in REQUEST_NODES]
        assert await status(booted, rec) == legal[-1]

    await consistent()
    await work(
        service, rec, "analysis_saude", ANALYST, outcome="extend", data={"extension_reason": "x"}
    )
    await consistent()
    await work(service, rec, "extended_saude", ANALYST, data={"answer": "42"})
    await consistent()
    await requests.appeal(rec.id, text="incompleto")
    await service.delivery.drain()
    await consistent()


async def test_an_extension_without_a_justification_is_refused(
    booted: Platform, service: WorkflowService
) -> None:
    rec = await received(booted, service)
    with pytest.raises(ValidationFailed) as refused:
        await work(service, rec, "analysis_saude", ANALYST, outcome="extend", data={})
    assert [e.code for e in refused.value.errors] == ["required_for_outcome"]
    assert [e.path for e in refused.value.errors] == ["data.extension_reason"]
    assert rec.instance_id is not None
    view = await service.engine.status(rec.instance_id)
    assert view.current_nodes == ("analysis_saude",)
