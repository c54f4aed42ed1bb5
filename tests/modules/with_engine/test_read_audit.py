"""Read audit on both databases: opening a *denúncia* and seeing a requester's personal data
leave entries in the audit chain (who, when, what; never the data), which ``audit verify``
covers; ``tramita audit reads`` and the admin page list them."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from litestar.testing import AsyncTestClient

from contracts.workflow.case import CASE_READ, PERSONAL_DATA_READ
from core.app import Platform
from core.audit import read_entries
from core.audit_verify import verify_chain
from core.auth import issue_token
from core.page_session import SESSION_COOKIE
from modules.esic.demo import ensure_staff
from modules.esic.domain import ManifestationKind
from modules.esic.records import Cases
from services.workflow.bootstrap import WorkflowService
from services.workflow.ui.web import open_session
from tests.apps import client_for

PT = {"accept-language": "pt-BR"}
NAME, EMAIL = "Carla Denunciante", "carla@example.org"


@pytest.fixture
async def client(booted: Platform) -> AsyncIterator[AsyncTestClient]:  # type: ignore[type-arg]
    async with client_for(booted) as c:
        yield c


async def user(platform: Platform, key: str, name: str, *permissions: str) -> str:
    directory = platform.directory  # type: ignore[attr-defined]
    await directory.ensure_profile(key, key, permissions)
    made = await directory.create_user(key, display_name=name, profile=key)
    return str(made.id)


async def sign_in(client: AsyncTestClient, platform: Platform, user_id: str) -> None:  # type: ignore[type-arg]
    session = await open_session(platform, user_id)
    client.cookies.set(SESSION_COOKIE, str(session.value))


def bearer(platform: Platform, user_id: str) -> dict[str, str]:
    token = issue_token(platform.settings.secret_key, user_id, now=platform.clock.now())
    return {"authorization": f"Bearer {token}"}


async def case_of(
    booted: Platform, service: WorkflowService, kind: ManifestationKind, **contact: str
) -> str:
    await ensure_staff(booted)
    case = await Cases(booted).receive(kind=kind, body="obra parada na rua", **contact)
    await service.delivery.drain()
    assert case.instance_id is not None
    return case.instance_id


async def reads_of(service: WorkflowService, instance_id: str) -> list[tuple[str, str, str]]:
    async with service.engine._uow() as uow:
        records = await read_entries(uow.conn, instance_id)  # type: ignore[attr-defined]
    return [(r.entry.action, r.entry.actor.id, r.entry.object_id) for r in records]


def tramita(database_url: str, *args: str, lang: str = "pt_BR") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TRAMITA_DATABASE_URL": database_url, "TRAMITA_LANG": lang}
    return subprocess.run(
        [str(Path(sys.executable).parent / "tramita"), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


async def test_a_denuncia_read_by_a_clerk_is_audited_and_the_chain_verifies(
    booted: Platform,
    service: WorkflowService,
    client: AsyncTestClient,  # type: ignore[type-arg]
    database_url: str,
) -> None:
    iid = await case_of(booted, service, ManifestationKind.DENUNCIATION, name=NAME, email=EMAIL)
    clerk = await user(booted, "clerk", "Bruno Servidor", "workflow.read")
    await sign_in(client, booted, clerk)
    page = await client.get(f"/cms/workflow/instances/{iid}", headers=PT)
    assert page.status_code == 200, page.text
    assert "obra parada na rua" in page.text and NAME not in page.text
    assert await reads_of(service, iid) == [(CASE_READ, clerk, iid)]
    async with service.engine._uow() as uow:
        (entry,) = await read_entries(uow.conn, iid)  # type: ignore[attr-defined]
        report = await verify_chain(uow.conn)  # type: ignore[attr-defined]
    assert NAME not in json.dumps([entry.entry.after, entry.entry.before, entry.entry.reason])
    assert report.ok and report.head_seq is not None and report.head_seq >= entry.seq
    done = await asyncio.to_thread(tramita, database_url, "audit", "verify", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["checked"] >= entry.seq


async def test_the_api_records_personal_data_shown_to_a_holder_of_the_contact_permission(
    booted: Platform,
    service: WorkflowService,
    client: AsyncTestClient,  # type: ignore[type-arg]
) -> None:
    iid = await case_of(booted, service, ManifestationKind.COMPLAINT, name=NAME, email=EMAIL)
    ombud = await user(booted, "ombud", "Olga", "workflow.read", "ouvidoria.requester")
    got = await client.get(f"/api/v1/instances/{iid}/case", headers=bearer(booted, ombud))
    assert got.status_code == 200, got.text
    assert got.json()["requester"]["name"] == NAME
    assert await reads_of(service, iid) == [(PERSONAL_DATA_READ, ombud, iid)]


async def test_a_complaint_without_personal_data_shown_leaves_no_read_entry(
    booted: Platform,
    service: WorkflowService,
    client: AsyncTestClient,  # type: ignore[type-arg]
) -> None:
    iid = await case_of(booted, service, ManifestationKind.COMPLAINT, name=NAME, email=EMAIL)
    clerk = await user(booted, "clerk", "Bruno Servidor", "workflow.read")
    got = await client.get(f"/api/v1/instances/{iid}/case", headers=bearer(booted, clerk))
    assert got.status_code == 200, got.text
    assert got.json()["requester"]["restricted"] is True
    assert await reads_of(service, iid) == []


async def test_audit_reads_lists_who_read_what_and_when_in_portuguese_and_english(
    booted: Platform,
    service: WorkflowService,
    client: AsyncTestClient,  # type: ignore[type-arg]
    database_url: str,
) -> None:
    iid = await case_of(booted, service, ManifestationKind.DENUNCIATION, name=NAME, email=EMAIL)
    ombud = await user(
        booted, "ombud", "Olga Ouvidora", "workflow.read", "ouvidoria.reveal_identity"
    )
    assert (
        await client.get(f"/api/v1/instances/{iid}/case", headers=bearer(booted, ombud))
    ).is_success
    revealed = await client.post(
        f"/api/v1/instances/{iid}/case/reveal",
        json={"reason": "Pedido do Ministério Público"},
        headers=bearer(booted, ombud),
    )
    assert revealed.status_code == 200, revealed.text
    pt = await asyncio.to_thread(tramita, database_url, "audit", "reads", "--instance", iid)
    assert pt.returncode == 0, pt.stderr
    lines = pt.stdout.splitlines()
    assert len(lines) == 3
    assert "Olga Ouvidora abriu o caso" in lines[0]
    assert "Olga Ouvidora abriu o caso" in lines[1]
    assert "Olga Ouvidora revelou a identidade protegida" in lines[2]
    assert NAME not in pt.stdout and EMAIL not in pt.stdout
    en = await asyncio.to_thread(
        tramita, database_url, "audit", "reads", "--instance", iid, lang="en"
    )
    assert "Olga Ouvidora opened the case" in en.stdout
    other = await asyncio.to_thread(
        tramita, database_url, "audit", "reads", "--instance", "nao-existe"
    )
    assert (other.returncode, other.stdout.strip()) == (
        0,
        "nenhuma leitura registrada para este processo",
    )


async def test_the_admin_page_lists_the_reads_and_refuses_a_clerk(
    booted: Platform,
    service: WorkflowService,
    client: AsyncTestClient,  # type: ignore[type-arg]
) -> None:
    iid = await case_of(booted, service, ManifestationKind.DENUNCIATION, name=NAME, email=EMAIL)
    clerk = await user(booted, "clerk", "Bruno Servidor", "workflow.read")
    await sign_in(client, booted, clerk)
    assert (await client.get(f"/cms/workflow/instances/{iid}", headers=PT)).status_code == 200
    refused = await client.get(f"/cms/workflow/instances/{iid}/reads", headers=PT)
    assert refused.status_code == 403
    admin = await user(booted, "admin", "Ada Admin", "workflow.read", "workflow.admin")
    await sign_in(client, booted, admin)
    instance_page = await client.get(f"/cms/workflow/instances/{iid}", headers=PT)
    assert f'href="/cms/workflow/instances/{iid}/reads"' in instance_page.text
    page = await client.get(f"/cms/workflow/instances/{iid}/reads", headers=PT)
    assert page.status_code == 200, page.text
    html = page.text
    assert html.count("Abriu o caso") == 2
    assert "Bruno Servidor" in html and "Ada Admin" in html
    assert NAME not in html and EMAIL not in html
    listed = await client.get(f"/api/v1/instances/{iid}/case/reads", headers=bearer(booted, admin))
    assert [(e["action"], e["actor"]["id"]) for e in listed.json()] == [
        (CASE_READ, clerk),
        (CASE_READ, admin),
    ]
    denied = await client.get(f"/api/v1/instances/{iid}/case/reads", headers=bearer(booted, clerk))
    assert denied.status_code == 403
