"""An identity-protected e-SIC request on both databases (Lei 13.460/2017 art. 10 §7, Decreto
10.153/2019): staff — even a holder of ``esic.requester`` — see a pseudonym on the pages, the
API and the answer's PDF data; revealing needs ``esic.reveal_identity`` and a reason, and is
audited; an unprotected request is shown as before; the answer still reaches the requester;
the citizen's public form explains the choice and stores it."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from litestar.testing import AsyncTestClient

from contracts.workflow.case import CASE_READ, IDENTITY_REVEALED, PERSONAL_DATA_READ
from core.app import Platform
from core.audit import read_entries
from core.audit_verify import verify_chain
from modules.esic.case import pseudonym
from modules.esic.demo import ANALYST, ensure_staff
from modules.esic.documents import ANSWER_TYPE
from modules.esic.info_requests import Requests
from modules.esic.records import Record
from modules.esic.request_form import FORM_PATH
from modules.esic.tables import requests
from services.workflow.bootstrap import WorkflowService
from tests.modules.with_engine.conftest import Inbox
from tests.modules.with_engine.test_esic_flow import work
from tests.modules.with_engine.test_read_audit import (
    EMAIL,
    NAME,
    PT,
    bearer,
    client,
    reads_of,
    sign_in,
    user,
)
from tests.unit.core.test_pdf import pdf_text

__all__ = ["client"]
REASON = "Decisão judicial no processo 0001234-56.2026"


async def request_of(
    booted: Platform, service: WorkflowService, *, protect: bool
) -> tuple[str, str]:
    await ensure_staff(booted)
    rec = await Requests(booted).receive(
        sector="saude",
        question="Quantos leitos?",
        name=NAME,
        email=EMAIL,
        identity_protected=protect,
    )
    await service.delivery.drain()
    assert rec.instance_id is not None
    return rec.id, rec.instance_id


async def test_a_clerk_with_the_contact_permission_sees_only_the_pseudonym_and_may_not_reveal(
    booted: Platform,
    service: WorkflowService,
    client: AsyncTestClient,  # type: ignore[type-arg]
    inbox: Inbox,
    tmp_path: Path,
) -> None:
    record_id, iid = await request_of(booted, service, protect=True)
    mask = pseudonym(record_id, "Requerente")
    clerk = await user(booted, "clerk", "Bruno", "workflow.read", "esic.requester")
    await sign_in(client, booted, clerk)
    html = (await client.get(f"/cms/workflow/instances/{iid}", headers=PT)).text
    assert mask in html and NAME not in html and EMAIL not in html
    assert f"/cms/workflow/instances/{iid}/reveal" not in html
    # opening it is recorded like a denúncia's (Decreto 10.153/2019): one entry, no personal data
    assert await reads_of(service, iid) == [(CASE_READ, clerk, iid)]
    async with service.engine._uow() as uow:
        (entry,) = await read_entries(uow.conn, iid)  # type: ignore[attr-defined]
        assert (await verify_chain(uow.conn)).ok  # type: ignore[attr-defined]
    assert NAME not in str(entry.entry.after) and EMAIL not in str(entry.entry.after)
    api = await client.get(f"/api/v1/instances/{iid}/case", headers=bearer(booted, clerk))
    assert api.json()["requester"]["pseudonym"] == mask
    assert NAME not in api.text and EMAIL not in api.text
    refused = await client.post(
        f"/api/v1/instances/{iid}/case/reveal",
        json={"reason": REASON},
        headers=bearer(booted, clerk),
    )
    assert refused.status_code == 403 and refused.json()["permission"] == "esic.reveal_identity"
    assert NAME not in refused.text
    assert await reads_of(service, iid) == [(CASE_READ, clerk, iid)] * 2  # the page, the API
    await work(
        service,
        Record(id=record_id, status="", instance_id=iid, protocol=None),
        "analysis_saude",
        ANALYST,
        outcome="answer",
        data={"answer": "São 42."},
    )
    # the answer's PDF (staff read it too) greets "requerente"; the e-mails still reach them
    answer = next(d for d in await service.documents.list_for(iid) if d.type_key == ANSWER_TYPE)
    text = pdf_text((await service.documents.content(answer.id))[1], tmp_path)
    assert "Prezado(a) requerente" in text and NAME not in text
    assert {m["To"] for m in inbox.messages} == {EMAIL}


async def test_a_holder_of_the_reveal_permission_reveals_with_a_reason_and_it_is_audited(
    booted: Platform,
    service: WorkflowService,
    client: AsyncTestClient,  # type: ignore[type-arg]
) -> None:
    _, iid = await request_of(booted, service, protect=True)
    judge = await user(booted, "revealer", "Rita", "workflow.read", "esic.reveal_identity")
    await sign_in(client, booted, judge)
    html = (await client.get(f"/cms/workflow/instances/{iid}", headers=PT)).text
    assert f'href="/cms/workflow/instances/{iid}/reveal"' in html and NAME not in html
    got = await client.post(
        f"/api/v1/instances/{iid}/case/reveal",
        json={"reason": REASON},
        headers=bearer(booted, judge),
    )
    assert got.status_code == 200, got.text
    assert (got.json()["requester"]["name"], got.json()["requester"]["email"]) == (NAME, EMAIL)
    assert await reads_of(service, iid) == [
        (CASE_READ, judge, iid),
        (CASE_READ, judge, iid),
        (IDENTITY_REVEALED, judge, iid),
    ]
    async with service.engine._uow() as uow:
        records = await read_entries(uow.conn, iid)  # type: ignore[attr-defined]
    (entry,) = [r.entry for r in records if r.entry.action == IDENTITY_REVEALED]
    assert entry.reason == REASON and NAME not in str(entry.after)


async def test_an_unprotected_request_shows_the_requester_and_has_nothing_to_reveal(
    booted: Platform,
    service: WorkflowService,
    client: AsyncTestClient,  # type: ignore[type-arg]
) -> None:
    _, iid = await request_of(booted, service, protect=False)
    clerk = await user(
        booted, "clerk", "Bruno", "workflow.read", "esic.requester", "esic.reveal_identity"
    )
    got = await client.get(f"/api/v1/instances/{iid}/case", headers=bearer(booted, clerk))
    requester = got.json()["requester"]
    assert (requester["name"], requester["email"], requester["pseudonym"]) == (NAME, EMAIL, None)
    reveal = await client.post(
        f"/api/v1/instances/{iid}/case/reveal",
        json={"reason": REASON},
        headers=bearer(booted, clerk),
    )
    assert reveal.status_code == 409
    assert await reads_of(service, iid) == [(PERSONAL_DATA_READ, clerk, iid)]


async def test_the_public_form_explains_the_choice_and_stores_it(
    booted: Platform,
    service: WorkflowService,
    client: AsyncTestClient,  # type: ignore[type-arg]
) -> None:
    await ensure_staff(booted)
    form = await client.get(FORM_PATH, headers=PT)
    assert form.status_code == 200
    assert 'name="identity_protected" type="checkbox"' in form.text
    assert "Preservar minha identidade" in form.text and "Requerente 7F3A" in form.text
    fields = {"sector": "saude", "question": "Quantos leitos?", "name": NAME, "email": EMAIL}
    wrong = await client.post(FORM_PATH, data={**fields, "email": "ana"}, headers=PT)
    assert wrong.status_code == 400 and "Escreva um endereço de e-mail" in wrong.text
    for protect in ({"identity_protected": "on"}, {}):
        sent = await client.post(FORM_PATH, data={**fields, **protect}, headers=PT)
        assert sent.status_code == 200 and "número de protocolo" in sent.text
    async with booted.database.connect() as conn:
        rows = (
            await conn.execute(
                sa.select(requests.c.identity_protected, requests.c.requester_email).order_by(
                    requests.c.created_at, requests.c.id
                )
            )
        ).all()
    assert [tuple(r) for r in rows] == [(True, EMAIL), (False, EMAIL)]
