"""The documents API over HTTP: list, upload, generate, download, delete, with permissions;
documents' own access levels (issue #23 item 2) over the API, the pages and the citizen side."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from contracts.errors import NotFound
from contracts.kernel import Actor
from contracts.workflow.case import CASE_OPENED
from contracts.workflow.types import StartRequest
from core.app import Platform
from core.audit import read_entries
from core.audit_verify import verify_chain
from core.auth import issue_token
from core.cli_audit import reads_cmd
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.plugins import PluginHost
from core.settings import Settings
from services.workflow.bootstrap import service_of
from services.workflow.documents import DocumentAccess, DocumentPermissions, DocumentType
from services.workflow.public.documents import citizen_document, citizen_documents
from services.workflow.runtime.ports.access import Viewer
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.apps import client_for
from tests.integration.documents.docsplugin import DocsPlugin
from tests.unit.core.test_pdf import pdf_text

pytestmark = pytest.mark.db

PDF_BYTES = b"%PDF-1.7\n1 0 obj\n<<>>\nendobj\n%%EOF\n"
PROFILES = {
    "clerk": ["workflow.read", "workflow.tasks", "docs.answer"],
    "reader": ["workflow.read"],
    "keeper": ["workflow.read", "workflow.tasks", "workflow.admin", "docs.secret"],
    "nobody": [],
    "classifier": ["workflow.read", "workflow.tasks", "workflow.classify"],
    "granted": ["workflow.read"],
}


class Docs:
    def __init__(
        self,
        platform: Platform,
        client: Any,
        tokens: dict[str, str],
        users: dict[str, str],
        case: str,
    ) -> None:
        self.platform, self.client, self.tokens, self.case = platform, client, tokens, case
        self.users = users

    def auth(self, user: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[user]}"}

    async def upload(
        self,
        user: str,
        data: bytes,
        name: str = "oficio.pdf",
        type_key: str = "docs.attachment",
        **access: str,
    ) -> Any:
        return await self.client.post(
            f"/api/v1/instances/{self.case}/documents/{type_key}",
            params={"name": name, **access},
            content=data,
            headers={**self.auth(user), "Content-Type": "application/octet-stream"},
        )


@pytest.fixture
async def docs(
    database_url: str, clock: FixedClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Docs]:
    monkeypatch.setenv("TRAMITA_WF_DOCUMENTS_DIR", str(tmp_path / "blobs"))
    host = PluginHost()
    host.discover(groups=["tramita.services"])
    host.register(DocsPlugin(), "docs_test")
    platform = await Platform.boot(
        Settings(database_url=database_url),
        clock=clock,
        ids=SequentialIdGen(clock),
        host=host,
        upgrade=False,
    )
    tokens, users = {}, {}
    for name, permissions in PROFILES.items():
        await platform.directory.ensure_profile(name, name.title(), permissions)
        user = await platform.directory.create_user(f"{name}-user", display_name=name, profile=name)
        tokens[name] = issue_token(platform.settings.secret_key, user.id, now=clock.now())
        users[name] = user.id
    wf = service_of(platform)
    await wf.catalog.add_member("docs.clerks", users["clerk"], actor=Actor.system("test"))
    view = await wf.engine.start(
        StartRequest(
            definition_key="docs.flow",
            context={"title": "x", "protocol": "DOC-7", "requester": {"name": "Ana & <Bia>"}},
            actor=Actor.system("test"),
        )
    )
    async with client_for(platform) as client:
        yield Docs(platform, client, tokens, users, view.id)
    await platform.close()


async def test_an_upload_is_listed_and_downloads_the_same_bytes(docs: Docs) -> None:
    response = await docs.upload("clerk", PDF_BYTES, name="../Ofício nº 1.pdf")
    assert response.status_code == 201, response.text
    body = response.json()
    assert (body["filename"], body["media_type"], body["type_name"]) == (
        "Ofício nº 1.pdf",
        "application/pdf",
        "Anexo",
    )
    assert body["content_hash"] == hashlib.sha256(PDF_BYTES).hexdigest()
    listed = await docs.client.get(
        f"/api/v1/instances/{docs.case}/documents", headers=docs.auth("reader")
    )
    assert [d["id"] for d in listed.json()] == [body["id"]]
    got = await docs.client.get(body["download"], headers=docs.auth("reader"))
    assert got.status_code == 200 and got.content == PDF_BYTES
    assert got.headers["content-type"].startswith("application/pdf")
    assert got.headers["content-disposition"] == (
        "attachment; filename=\"Of_cio_n__1.pdf\"; filename*=UTF-8''Of%C3%ADcio%20n%C2%BA%201.pdf"
    )


async def test_uploading_needs_a_login_and_the_types_write_permission(docs: Docs) -> None:
    assert (
        await docs.client.post(
            f"/api/v1/instances/{docs.case}/documents/docs.attachment",
            params={"name": "a.pdf"},
            content=PDF_BYTES,
        )
    ).status_code == 401
    assert (await docs.upload("reader", PDF_BYTES)).status_code == 403
    assert (await docs.upload("clerk", PDF_BYTES, type_key="docs.secret")).status_code == 403
    assert (await docs.upload("keeper", PDF_BYTES, type_key="docs.secret")).status_code == 201


async def test_a_wrong_type_or_an_oversized_file_is_refused(docs: Docs) -> None:
    wrong = await docs.upload("clerk", b"<html><script>x</script>", name="a.pdf")
    assert wrong.status_code == 422
    assert wrong.json()["errors"][0]["code"] == "type_not_allowed"
    # Past the API's 1 MiB body limit: the upload route's own limit lets it reach the type's.
    big = await docs.upload("clerk", PDF_BYTES + b"0" * (1536 * 1024))
    assert (big.status_code, big.json()["limit_bytes"]) == (413, 2000)
    unknown = await docs.upload("clerk", PDF_BYTES, type_key="docs.nothing")
    assert unknown.status_code == 404


async def test_a_document_of_a_type_one_may_not_read_is_hidden_and_not_served(
    docs: Docs,
) -> None:
    secret = (await docs.upload("keeper", PDF_BYTES, type_key="docs.secret")).json()
    listed = await docs.client.get(
        f"/api/v1/instances/{docs.case}/documents", headers=docs.auth("clerk")
    )
    assert listed.json() == []
    assert (
        await docs.client.get(secret["download"], headers=docs.auth("clerk"))
    ).status_code == 403
    assert (
        await docs.client.get(secret["download"], headers=docs.auth("keeper"))
    ).status_code == 200


async def test_generating_fills_the_template_from_the_instance(docs: Docs, tmp_path: Path) -> None:
    response = await docs.client.post(
        f"/api/v1/instances/{docs.case}/documents/docs.answer/generate",
        json={},
        headers=docs.auth("clerk"),
    )
    assert response.status_code == 201, response.text
    assert response.json()["template_version"] == 1
    pdf = (await docs.client.get(response.json()["download"], headers=docs.auth("clerk"))).content
    assert "Prezado(a) Ana & <Bia>, protocolo DOC-7." in pdf_text(pdf, tmp_path)


async def test_deleting_is_refused_while_the_case_is_active(docs: Docs) -> None:
    doc = (await docs.upload("clerk", PDF_BYTES)).json()
    url = f"/api/v1/documents/{doc['id']}/delete"
    assert (
        await docs.client.post(url, json={"reason": "x"}, headers=docs.auth("clerk"))
    ).status_code == 403
    refused = await docs.client.post(url, json={"reason": "x"}, headers=docs.auth("keeper"))
    assert (refused.status_code, refused.json()["code"]) == (409, "instance_active")
    missing = "/api/v1/documents/00000000-0000-0000-0000-000000000000/content"
    assert (await docs.client.get(missing, headers=docs.auth("reader"))).status_code == 404


async def test_the_pages_list_the_documents_one_may_read_and_serve_them(docs: Docs) -> None:
    doc = (await docs.upload("clerk", PDF_BYTES, name="Ofício <1>.pdf")).json()
    hidden = (await docs.upload("keeper", PDF_BYTES + b" ", "segredo.pdf", "docs.secret")).json()
    session = await open_session(docs.platform, docs.users["clerk"])
    docs.client.cookies.set(SESSION_COOKIE, str(session.value))
    wf = service_of(docs.platform)
    (task,) = await wf.engine.tasks(docs.case)
    for url in (
        f"/cms/workflow/instances/{docs.case}",
        f"/cms/workflow/instances/{docs.case}/tasks/{task.id}",
    ):
        page = await docs.client.get(url)
        assert page.status_code == 200, page.text[:300]
        assert '<h2 id="documents-title">Documentos</h2>' in page.text
        assert "Ofício &lt;1&gt;.pdf" in page.text and "Enviado" in page.text
        assert f'href="/cms/workflow/documents/{doc["id"]}"' in page.text
        assert "segredo.pdf" not in page.text
    got = await docs.client.get(f"/cms/workflow/documents/{doc['id']}")
    assert (got.status_code, got.content) == (200, PDF_BYTES)
    assert (await docs.client.get(f"/cms/workflow/documents/{hidden['id']}")).status_code == 403


async def test_a_document_of_a_restricted_case_is_an_audited_opening_hidden_like_a_missing_one(
    docs: Docs,
) -> None:
    doc = (await docs.upload("clerk", PDF_BYTES)).json()
    wf = service_of(docs.platform)
    classifier = Viewer(tenant="default", user_id=docs.users["keeper"], classifier=True)
    await wf.access.change(
        docs.case,
        "restricted",
        "lai.art31",
        viewer=classifier,
        actor=Actor.system("test"),
        reason="x",
    )

    async def openings() -> list[tuple[str, str]]:
        async with wf.engine._uow() as uow:
            records = await read_entries(uow.conn, docs.case)  # type: ignore[attr-defined]
        return [
            (r.entry.actor.id, r.entry.after["level"])
            for r in records
            if r.entry.action == CASE_OPENED
        ]

    got = await docs.client.get(doc["download"], headers=docs.auth("clerk"))  # in its queue
    session = await open_session(docs.platform, docs.users["clerk"])
    docs.client.cookies.set(SESSION_COOKIE, str(session.value))
    page = await docs.client.get(f"/cms/workflow/documents/{doc['id']}")
    docs.client.cookies.clear()
    assert (got.status_code, page.status_code) == (200, 200)
    assert await openings() == [(docs.users["clerk"], "restricted")] * 2

    hidden = await docs.client.get(doc["download"], headers=docs.auth("reader"))
    missing = "/api/v1/documents/00000000-0000-0000-0000-000000000000/content"
    unknown = await docs.client.get(missing, headers=docs.auth("reader"))
    assert (hidden.status_code, hidden.text.replace(doc["id"], "ID")) == (
        unknown.status_code,
        unknown.text.replace("00000000-0000-0000-0000-000000000000", "ID"),
    )
    assert await openings() == [(docs.users["clerk"], "restricted")] * 2


async def test_a_restricted_document_of_a_public_case_is_an_audited_opening(docs: Docs) -> None:
    """Each download of a restricted document (API and page) writes one ``case.opened`` naming
    it, committed before the bytes; a public document of the same public case writes none."""
    ids = {}
    restricted = {"level": "restricted", "ground": "lai.art31"}
    for level, access in (("public", {}), ("restricted", restricted)):
        made = await docs.upload("clerk", PDF_BYTES, f"{level}.pdf", **access)
        assert made.status_code == 201, made.text
        ids[level] = made.json()["id"]
    await _sign_in(docs, "clerk")
    for doc in ids.values():
        api = await docs.client.get(f"/api/v1/documents/{doc}/content", headers=docs.auth("clerk"))
        page = await docs.client.get(f"/cms/workflow/documents/{doc}")
        assert (api.status_code, page.status_code) == (200, 200)
    async with service_of(docs.platform).engine._uow() as uow:
        records = await read_entries(uow.conn, docs.case)  # type: ignore[attr-defined]
        report = await verify_chain(uow.conn)  # type: ignore[attr-defined]
    opened = (
        CASE_OPENED,
        docs.users["clerk"],
        {"level": "restricted", "document": ids["restricted"]},
    )
    assert [(r.entry.action, r.entry.actor.id, r.entry.after) for r in records] == [opened] * 2
    assert report.ok


async def test_the_reads_list_a_document_download_as_the_documents_opening(
    docs: Docs, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not as an opening of the case: the page names the document (by its id to an
    administrator who may not read it) and ``tramita audit reads`` by its id, pt-BR and en."""
    made = await docs.upload(
        "clerk", PDF_BYTES, "laudo.pdf", level="restricted", ground="lai.art31"
    )
    doc = made.json()["id"]
    got = await docs.client.get(f"/api/v1/documents/{doc}/content", headers=docs.auth("clerk"))
    assert got.status_code == 200, got.text
    reads = f"/cms/workflow/instances/{docs.case}/reads"
    await _sign_in(docs, "keeper")  # workflow.admin, not involved: the document is hidden to them
    shown = await docs.client.get(reads, headers={"accept-language": "pt-BR"})
    assert f"Abriu o documento {doc}" in shown.text and "Abriu o caso" not in shown.text
    await service_of(docs.platform).catalog.add_member(
        "docs.clerks", docs.users["keeper"], actor=Actor.system("test")
    )
    shown = await docs.client.get(reads, headers={"accept-language": "en"})
    assert "Opened the document laudo.pdf" in shown.text, shown.text

    monkeypatch.setenv("TRAMITA_DATABASE_URL", database_url)
    listed = await asyncio.to_thread(CliRunner().invoke, reads_cmd, ["--instance", docs.case])
    assert listed.output.count(f"abriu o documento {doc}") == 1, listed.output


async def _sign_in(docs: Docs, user: str) -> str:
    """A page session for ``user``; the CSRF token the forms need."""
    docs.client.cookies.clear()
    session = await open_session(docs.platform, docs.users[user])
    docs.client.cookies.set(SESSION_COOKIE, str(session.value))
    await docs.client.get("/cms/login")  # any page: the CSRF middleware sets its cookie
    return str(docs.client.cookies["tramita_csrf"])


async def test_a_documents_level_decides_who_lists_and_downloads_it(docs: Docs) -> None:
    """The walk: the case is public; clerk is involved (a member of its task's queue), granted
    holds a grant on the case, reader is neither, classifier classifies. A hidden document is
    the unknown document's 404, on the API and the pages, and is never listed; the citizen side
    shows a public document only, whatever its type says."""
    ids = {}
    for level, ground in (("public", ""), ("restricted", "lai.art31"), ("secret", "lai.art23")):
        access = {"level": level, "ground": ground} if ground else {}
        made = await docs.upload("clerk", PDF_BYTES + level.encode(), f"{level}.pdf", **access)
        assert made.status_code == 201, made.text
        assert (made.json()["level"], made.json()["ground"]) == (level, ground or None)
        ids[level] = made.json()["id"]
    granted = await docs.client.post(
        f"/api/v1/instances/{docs.case}/access/grants",
        json={"user_id": docs.users["granted"], "reason": "Instrução"},
        headers=docs.auth("classifier"),
    )
    assert granted.status_code == 201, granted.text
    unknown = "00000000-0000-0000-0000-000000000000"
    missing = await docs.client.get(
        f"/api/v1/documents/{unknown}/content", headers=docs.auth("reader")
    )
    sees = {
        "reader": {"public"},
        "clerk": {"public", "restricted"},
        "classifier": {"public", "restricted"},
        "granted": {"public", "restricted", "secret"},
    }
    for user, levels in sees.items():
        listed = await docs.client.get(
            f"/api/v1/instances/{docs.case}/documents", headers=docs.auth(user)
        )
        assert [d["id"] for d in listed.json()] == [ids[lv] for lv in ids if lv in levels], user
        for level, doc in ids.items():
            got = await docs.client.get(f"/api/v1/documents/{doc}/content", headers=docs.auth(user))
            if level in levels:
                assert (got.status_code, got.content) == (200, PDF_BYTES + level.encode())
            else:
                assert got.status_code == 404, (user, level)
                assert got.text.replace(doc, unknown) == missing.text
    for user, levels in (("reader", {"public"}), ("clerk", {"public", "restricted"})):
        await _sign_in(docs, user)
        shown = (await docs.client.get(f"/cms/workflow/instances/{docs.case}")).text
        for level, doc in ids.items():
            assert (f"{level}.pdf" in shown) == (level in levels), (user, level)
            got = await docs.client.get(f"/cms/workflow/documents/{doc}")
            assert got.status_code == (200 if level in levels else 404), (user, level)

    # A citizen type whose documents are restricted unless said otherwise (its default).
    wf = service_of(docs.platform)
    await wf.documents.register_type(
        DocumentType(
            key="docs.letter",
            name="Carta",
            permissions=DocumentPermissions(citizen=True),
            access=DocumentAccess(level="restricted", ground="lai.art31"),
        )
    )
    letters = [
        await wf.documents.upload(
            docs.case,
            "docs.letter",
            PDF_BYTES + body,
            "carta.pdf",
            actor=Actor.system("t"),
            access=access,
        )
        for body, access in ((b"1", None), (b"2", DocumentAccess(level="public")))
    ]
    assert [d.level for d in letters] == ["restricted", "public"]
    public = await citizen_documents(wf.documents, docs.case, "token")
    assert [d.id for d in public] == [letters[1].id]
    with pytest.raises(NotFound):
        await citizen_document(wf.documents, docs.case, letters[0].id)


async def test_a_documents_level_needs_a_ground_and_its_change_is_audited(docs: Docs) -> None:
    for ground in ({}, {"ground": "lai.art99"}):
        refused = await docs.upload("clerk", PDF_BYTES, level="restricted", **ground)
        assert refused.status_code == 422, refused.text
        assert refused.json()["field"] == "ground"
    doc = (await docs.upload("clerk", PDF_BYTES)).json()
    url = f"/api/v1/documents/{doc['id']}/access"
    body = {"level": "restricted", "ground": "lai.art31", "reason": "Dados pessoais"}
    assert (await docs.client.post(url, json=body, headers=docs.auth("clerk"))).status_code == 403
    changed = await docs.client.post(url, json=body, headers=docs.auth("classifier"))
    assert changed.status_code == 200, changed.text
    assert (changed.json()["level"], changed.json()["ground"]) == ("restricted", "lai.art31")
    assert (await docs.client.get(doc["download"], headers=docs.auth("reader"))).status_code == 404
    trail = await docs.client.get(
        f"/api/v1/instances/{docs.case}/audit", headers=docs.auth("classifier")
    )
    (entry,) = [e for e in trail.json() if e["action"] == "workflow.document.access.changed"]
    assert (entry["object_id"], entry["reason"]) == (doc["id"], "Dados pessoais")
    assert entry["before"] == {"level": "public"}
    assert entry["after"] == {"level": "restricted", "ground": "lai.art31"}
    assert entry["actor"]["id"] == docs.users["classifier"]

    # The pages: a level without a ground is refused on its field, in Portuguese.
    pt = {"accept-language": "pt-BR"}
    csrf = await _sign_in(docs, "classifier")
    form = await docs.client.post(
        f"/cms/workflow/documents/{doc['id']}/access",
        data={"_csrf_token": csrf, "level": "secret", "ground": "", "reason": "Sigilo"},
        headers=pt,
    )
    assert form.status_code == 422, form.text
    assert 'id="ground-error"' in form.text and "precisa de uma hipótese legal" in form.text
    assert '<option value="secret" selected>' in form.text
    csrf = await _sign_in(docs, "clerk")
    new = f"/cms/workflow/instances/{docs.case}/documents/new"
    for ground, status in (("", 422), ("lai.art31", 303)):
        added = await docs.client.post(
            new,
            data={
                "_csrf_token": csrf,
                "type_key": "docs.attachment",
                "level": "restricted",
                "ground": ground,
            },
            files={"file": ("anexo.pdf", PDF_BYTES + b"page", "application/pdf")},
            headers=pt,
            follow_redirects=False,
        )
        assert added.status_code == status, added.text
    assert 'id="ground-error"' not in added.text
    listed = await docs.client.get(
        f"/api/v1/instances/{docs.case}/documents", headers=docs.auth("clerk")
    )
    assert [(d["filename"], d["level"]) for d in listed.json()][-1] == ("anexo.pdf", "restricted")
