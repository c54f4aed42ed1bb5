"""Identity protection in a denúncia on both databases (Lei 13.460/2017 art. 10 §7): staff see
a stable pseudonym; the reveal needs its own permission and a reason (kept in the audit entry),
through the API and the page; without the permission it is a clear 403 and nothing is revealed."""

from __future__ import annotations

from litestar.testing import AsyncTestClient

from contracts.workflow.case import CASE_READ, IDENTITY_REVEALED
from core.app import Platform
from core.audit import read_entries
from modules.esic.case import pseudonym
from modules.esic.domain import ManifestationKind
from services.workflow.bootstrap import WorkflowService
from tests.modules.with_engine.test_read_audit import (
    EMAIL,
    NAME,
    PT,
    bearer,
    case_of,
    client,
    reads_of,
    sign_in,
    user,
)

__all__ = ["client"]
REASON = "Ofício do Ministério Público nº 12/2026"


async def mask_of(service: WorkflowService, instance_id: str) -> str:
    subject = (await service.engine.status(instance_id)).subject
    assert subject is not None
    return pseudonym(subject.id)


async def test_staff_see_a_stable_pseudonym_and_a_clerk_is_refused_the_reveal(
    booted: Platform,
    service: WorkflowService,
    client: AsyncTestClient,  # type: ignore[type-arg]
) -> None:
    iid = await case_of(booted, service, ManifestationKind.DENUNCIATION, name=NAME, email=EMAIL)
    mask = await mask_of(service, iid)
    assert mask.startswith("Manifestante ") and len(mask) == len("Manifestante 7F3A")
    clerk = await user(booted, "clerk", "Bruno", "workflow.read", "ouvidoria.requester")
    await sign_in(client, booted, clerk)
    for _ in range(2):
        html = (await client.get(f"/cms/workflow/instances/{iid}", headers=PT)).text
        assert mask in html and NAME not in html and EMAIL not in html
        assert f"/cms/workflow/instances/{iid}/reveal" not in html
    api = await client.get(f"/api/v1/instances/{iid}/case", headers=bearer(booted, clerk))
    assert api.json()["requester"]["pseudonym"] == mask
    assert api.json()["requester"]["name"] is None
    refused = await client.post(
        f"/api/v1/instances/{iid}/case/reveal",
        json={"reason": REASON},
        headers=bearer(booted, clerk),
    )
    assert refused.status_code == 403
    assert refused.json()["permission"] == "ouvidoria.reveal_identity"
    assert NAME not in refused.text
    form = await client.get(f"/cms/workflow/instances/{iid}/reveal", headers=PT)
    token = form.text.split('name="_csrf_token" value="', 1)[1].split('"', 1)[0]
    page = await client.post(
        f"/cms/workflow/instances/{iid}/reveal",
        data={"_csrf_token": token, "reason": REASON},
        headers=PT,
    )
    assert page.status_code == 403 and NAME not in page.text
    assert IDENTITY_REVEALED not in [a for a, _, _ in await reads_of(service, iid)]


async def test_a_holder_of_the_reveal_permission_reveals_with_a_reason_and_it_is_audited(
    booted: Platform,
    service: WorkflowService,
    client: AsyncTestClient,  # type: ignore[type-arg]
) -> None:
    iid = await case_of(booted, service, ManifestationKind.DENUNCIATION, name=NAME, email=EMAIL)
    judge = await user(booted, "revealer", "Rita", "workflow.read", "ouvidoria.reveal_identity")
    await sign_in(client, booted, judge)
    html = (await client.get(f"/cms/workflow/instances/{iid}", headers=PT)).text
    assert f'href="/cms/workflow/instances/{iid}/reveal"' in html and NAME not in html
    form = await client.get(f"/cms/workflow/instances/{iid}/reveal", headers=PT)
    assert form.status_code == 200 and "Justificativa" in form.text
    token = form.text.split('name="_csrf_token" value="', 1)[1].split('"', 1)[0]
    empty = await client.post(
        f"/cms/workflow/instances/{iid}/reveal",
        data={"_csrf_token": token, "reason": "  "},
        headers=PT,
    )
    assert empty.status_code == 400 and NAME not in empty.text
    shown = await client.post(
        f"/cms/workflow/instances/{iid}/reveal",
        data={"_csrf_token": token, "reason": REASON},
        headers=PT,
    )
    assert shown.status_code == 200, shown.text
    assert NAME in shown.text and EMAIL in shown.text
    blank = await client.post(
        f"/api/v1/instances/{iid}/case/reveal",
        json={"reason": " "},
        headers=bearer(booted, judge),
    )
    assert blank.status_code in (400, 422)
    api = await client.post(
        f"/api/v1/instances/{iid}/case/reveal",
        json={"reason": REASON},
        headers=bearer(booted, judge),
    )
    assert api.status_code == 200 and api.json()["requester"]["name"] == NAME
    assert await reads_of(service, iid) == [
        (CASE_READ, judge, iid),
        (CASE_READ, judge, iid),
        (IDENTITY_REVEALED, judge, iid),
        (CASE_READ, judge, iid),
        (IDENTITY_REVEALED, judge, iid),
    ]
    async with service.engine._uow() as uow:
        records = await read_entries(uow.conn, iid)  # type: ignore[attr-defined]
    reveals = [r.entry for r in records if r.entry.action == IDENTITY_REVEALED]
    assert [e.reason for e in reveals] == [REASON, REASON]
    assert all(NAME not in str(e.after) for e in reveals)


async def test_revealing_a_case_without_a_protected_identity_is_a_conflict(
    booted: Platform,
    service: WorkflowService,
    client: AsyncTestClient,  # type: ignore[type-arg]
) -> None:
    iid = await case_of(booted, service, ManifestationKind.COMPLAINT, name=NAME, email=EMAIL)
    judge = await user(booted, "revealer", "Rita", "workflow.read", "ouvidoria.reveal_identity")
    got = await client.post(
        f"/api/v1/instances/{iid}/case/reveal",
        json={"reason": REASON},
        headers=bearer(booted, judge),
    )
    assert got.status_code == 409
    assert await reads_of(service, iid) == []
