"""The e-SIC case beside a task: the question, the requester only with ``esic.requester``,
appeals and public steps in order, and the instance's submissions as the task pages read them."""

from __future__ import annotations

from contracts.kernel import Actor
from contracts.workflow.case import CaseDescription, CaseQuery
from contracts.workflow.types import SubjectRef
from core.app import Platform
from modules.esic.demo import ANALYST, ensure_staff
from modules.esic.domain import ManifestationKind
from modules.esic.info_requests import Requests
from modules.esic.records import Cases, Record
from services.workflow.bootstrap import WorkflowService
from services.workflow.forms import decode_snapshot
from services.workflow.handles import handles_of
from tests.modules.with_engine.test_esic_flow import received, work


async def describe(
    booted: Platform, rec: Record, subject_type: str, *grants: str
) -> CaseDescription | None:
    assert rec.instance_id is not None and rec.protocol is not None
    view = booted.registrations.case_views[subject_type]
    return await view.describe(
        CaseQuery(
            subject=SubjectRef(type=subject_type, id=rec.id),
            instance_id=rec.instance_id,
            protocol=rec.protocol,
            definition_key="esic.pedido",
            viewer=Actor(kind="user", id=ANALYST.id),
            grants=frozenset(grants),
        )
    )


async def test_the_request_shows_its_question_and_sector_but_not_the_requester_by_default(
    booted: Platform, service: WorkflowService
) -> None:
    rec = await received(booted, service)
    case = await describe(booted, rec, "esic.request", "esic.answer")
    assert case is not None
    assert case.title == f"Pedido de informação {rec.protocol}"
    assert case.summary == ("Quantos leitos?",)
    assert [(f.label, f.value) for f in case.fields] == [
        ("Setor", "Saúde"),
        ("Situação", "Em análise"),
    ]
    assert case.requester is not None
    assert (case.requester.restricted, case.requester.name, case.requester.email) == (
        True,
        None,
        None,
    )
    assert case.documents == ()


async def test_a_viewer_with_esic_requester_sees_who_asked(
    booted: Platform, service: WorkflowService
) -> None:
    rec = await received(booted, service)
    case = await describe(booted, rec, "esic.request", "esic.requester")
    assert case is not None and case.requester is not None
    assert (case.requester.restricted, case.requester.name, case.requester.email) == (
        False,
        "Ana",
        "ana@example.org",
    )


async def test_appeals_and_public_steps_are_listed_oldest_first_with_the_grounds(
    booted: Platform, service: WorkflowService
) -> None:
    rec = await received(booted, service)
    await work(service, rec, "analysis_saude", ANALYST, outcome="answer", data={"answer": "42"})
    await Requests(booted).appeal(rec.id, text="Resposta incompleta.")
    await service.delivery.drain()
    case = await describe(booted, rec, "esic.request")
    assert case is not None
    labels = [(e.label, e.text) for e in case.entries]
    assert ("Recurso do requerente em 1ª instância", "Resposta incompleta.") in labels
    assert ("Respondido", "") in labels
    assert [e.at for e in case.entries] == sorted(e.at for e in case.entries)
    assert next(f.value for f in case.fields if f.label == "Situação") == (
        "Recurso em 1ª instância"
    )


async def test_the_answer_given_is_an_earlier_submission_of_the_instance(
    booted: Platform, service: WorkflowService
) -> None:
    rec = await received(booted, service)
    await work(service, rec, "analysis_saude", ANALYST, outcome="answer", data={"answer": "42"})
    assert rec.instance_id is not None
    (row,) = await handles_of(booted).reads.submissions(rec.instance_id)
    snapshot = decode_snapshot(row.snapshot)
    assert (row.form_key, snapshot.actor_id, snapshot.as_dict()["answer"]) == (
        "esic.analysis",
        ANALYST.id,
        "42",
    )


async def test_an_unknown_request_is_not_described(
    booted: Platform, service: WorkflowService
) -> None:
    rec = await received(booted, service)
    ghost = Record(
        id="00000000-0000-7000-8000-000000000000",
        status="received",
        instance_id=rec.instance_id,
        protocol="X",
    )
    assert await describe(booted, ghost, "esic.request") is None


async def test_an_anonymous_ombudsman_case_says_so_whatever_the_viewer_may_see(
    booted: Platform, service: WorkflowService
) -> None:
    await ensure_staff(booted)
    case = await Cases(booted).receive(kind=ManifestationKind.DENUNCIATION, body="obra parada")
    await service.delivery.drain()
    described = await describe(booted, case, "ouvidoria.case", "ouvidoria.requester")
    assert described is not None and described.requester is not None
    assert described.requester.anonymous
    assert described.requester.name is None
    assert described.summary == ("obra parada",)
