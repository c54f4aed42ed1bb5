"""The e-SIC answer and each appeal decision become PDF documents of the process, made once,
and the requester downloads them through the signed link — nothing else (SQLite and
PostgreSQL). The PDFs are read back with poppler's ``pdftotext``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from contracts.workflow.types import StepInput
from core.app import Platform
from modules.esic.demo import ANALYST, AUTHORITY
from modules.esic.documents import ANSWER_TYPE, appeal_type
from modules.esic.info_requests import Requests
from services.workflow.bootstrap import WorkflowService
from services.workflow.public.links import sign_link
from tests.apps import client_for
from tests.modules.with_engine.test_esic_flow import received, work
from tests.unit.core.test_pdf import pdf_text


async def documents(service: WorkflowService, instance_id: str) -> dict[str, Any]:
    return {d.type_key: d for d in await service.documents.list_for(instance_id)}


@pytest.fixture
async def client(booted: Platform) -> AsyncIterator[AsyncTestClient]:  # type: ignore[type-arg]
    async with client_for(booted) as c:
        yield c


async def test_the_answer_is_a_pdf_of_the_process_with_the_request_and_the_answer(
    booted: Platform, service: WorkflowService, tmp_path: Path
) -> None:
    rec = await received(booted, service)
    assert rec.instance_id is not None
    assert await documents(service, rec.instance_id) == {}  # nothing before the answer
    await work(
        service, rec, "analysis_saude", ANALYST, outcome="answer", data={"answer": "São 42."}
    )
    held = await documents(service, rec.instance_id)
    assert list(held) == [ANSWER_TYPE]
    answer = held[ANSWER_TYPE]
    assert (answer.origin, answer.media_type, answer.template_version) == (
        "generated",
        "application/pdf",
        1,
    )
    _, data = await service.documents.content(answer.id)
    assert data.startswith(b"%PDF")
    text = pdf_text(data, tmp_path)
    for expected in (rec.protocol or "", "Saúde", "Quantos leitos?", "São 42.", "Ana"):
        assert expected in text
    assert "02/03/2026" in text  # filed and answered on the fixed clock's local day


async def test_each_appeal_decision_is_its_own_document_with_the_citizens_grounds(
    booted: Platform, service: WorkflowService, tmp_path: Path
) -> None:
    rec = await received(booted, service)
    assert rec.instance_id is not None
    await work(service, rec, "analysis_saude", ANALYST, outcome="answer", data={"answer": "42"})
    await Requests(booted).appeal(rec.id, text="Faltam os leitos de UTI")
    await service.delivery.drain()
    await work(service, rec, "appeal_1", AUTHORITY, data={"appeal_answer": "Provido: 12 de UTI"})
    held = await documents(service, rec.instance_id)
    assert sorted(held) == sorted([ANSWER_TYPE, appeal_type(1)])
    _, data = await service.documents.content(held[appeal_type(1)].id)
    text = pdf_text(data, tmp_path)
    for expected in (rec.protocol or "", "1ª", "Faltam os leitos de UTI", "Provido: 12 de UTI"):
        assert expected in text


async def test_a_redelivered_document_step_makes_no_second_document(
    booted: Platform, service: WorkflowService
) -> None:
    from modules.esic.notify import handlers
    from modules.esic.plugin import RUNTIME

    rec = await received(booted, service)
    assert rec.instance_id is not None
    await work(service, rec, "analysis_saude", ANALYST, outcome="answer", data={"answer": "42"})
    (first,) = await service.documents.list_for(rec.instance_id)
    step = StepInput(
        instance_id=rec.instance_id,
        protocol=rec.protocol or "",
        definition_key="esic.pedido",
        node_id="document_answer",
        attempt_group=1,
        attempt=2,
        idempotency_key="redelivered",
        reference=rec.protocol or "",
        data={"request_id": rec.id, "answer": "42"},
    )
    await handlers(RUNTIME)["esic.document"].execute(step, control=None)  # type: ignore[arg-type]
    assert [d.id for d in await service.documents.list_for(rec.instance_id)] == [first.id]


async def test_the_requester_downloads_the_answer_through_the_signed_link_only(
    booted: Platform,
    service: WorkflowService,
    client: AsyncTestClient,  # type: ignore[type-arg]
) -> None:
    rec = await received(booted, service)
    other = await received(booted, service, "educacao")
    assert rec.instance_id is not None and other.instance_id is not None
    await work(service, rec, "analysis_saude", ANALYST, outcome="answer", data={"answer": "42"})
    await work(service, other, "analysis_educacao", ANALYST, outcome="answer", data={"answer": "7"})
    token = sign_link(booted.settings.secret_key, booted.clock, rec.protocol or "")
    (answer,) = await service.documents.list_for(rec.instance_id)
    (others,) = await service.documents.list_for(other.instance_id)
    href = f"/public/timeline/{token}/documents/{answer.id}"

    listed = (await client.get(f"/public/timeline/{token}/json")).json()["documents"]
    assert [(d["name"], d["href"]) for d in listed] == [
        ("Resposta ao pedido de acesso à informação", href)
    ]
    for page in (f"/public/timeline/{token}", f"/portal/timeline/{token}"):
        response = await client.get(page)
        assert response.status_code == 200, response.text
        assert href in response.text

    got = await client.get(href)
    assert got.status_code == 200
    assert got.content == (await service.documents.content(answer.id))[1]
    assert got.headers["content-type"] == "application/pdf"
    assert got.headers["content-disposition"].startswith("attachment")
    assert got.headers["x-content-type-options"] == "nosniff"

    # Another process's document, an unknown id, a forged link: the same plain 404.
    for wrong in (
        f"/public/timeline/{token}/documents/{others.id}",
        f"/public/timeline/{token}/documents/0190d1a0-0000-7000-8000-000000000000",
        f"/public/timeline/{token}x/documents/{answer.id}",
    ):
        assert (await client.get(wrong)).status_code == 404, wrong


async def test_a_staff_only_document_is_neither_listed_nor_served_to_the_requester(
    booted: Platform,
    service: WorkflowService,
    client: AsyncTestClient,  # type: ignore[type-arg]
) -> None:
    from services.workflow.documents import DocumentType

    rec = await received(booted, service)
    assert rec.instance_id is not None
    await service.documents.register_type(
        DocumentType(key="esic.parecer", name="Parecer interno", unique_per_instance=True)
    )
    pdf = (
        b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]"
        b"/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
    )
    from contracts.kernel import Actor

    internal = await service.documents.upload(
        rec.instance_id, "esic.parecer", pdf, "parecer.pdf", actor=Actor(id=ANALYST.id)
    )
    token = sign_link(booted.settings.secret_key, booted.clock, rec.protocol or "")
    assert (await client.get(f"/public/timeline/{token}/json")).json()["documents"] == []
    served = await client.get(f"/public/timeline/{token}/documents/{internal.id}")
    assert served.status_code == 404
