"""The editor's import: a BPMN file from another modeler uploaded on the new-draft page becomes
a draft listing every gap, its suggestions are used only when the designer confirms them, and
the filled draft publishes; a refused file lists each problem (both databases)."""

from __future__ import annotations

from pathlib import Path

from httpx import Response

from services.workflow.handles import handles_of
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api
from tests.e2e.api.human_helpers import user_id

CORPUS = Path(__file__).parents[2] / "unit" / "bpmn" / "data" / "corpus"
DRAFTS = "/cms/workflow/drafts"


async def _signed_in(api: Api) -> dict[str, str]:
    session = await open_session(api.platform, user_id(api, "admin"))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    response = await api.client.get(f"{DRAFTS}/new")
    assert response.status_code == 200, response.text
    assert f'action="{DRAFTS}/import"' in response.text
    return {"x-csrftoken": api.client.cookies["tramita_csrf"]}


async def _upload(api: Api, headers: dict[str, str], path: Path) -> Response:
    return await api.client.post(
        f"{DRAFTS}/import",
        files={"file": (path.name, path.read_bytes(), "application/xml")},
        headers=headers,
        follow_redirects=False,
    )


async def _post(api: Api, headers: dict[str, str], url: str, **data: str) -> str:
    response = await api.client.post(url, data=data, headers=headers, follow_redirects=False)
    assert response.status_code == 303, response.text[:2000]
    return str(response.headers["location"])


async def test_an_uploaded_file_becomes_a_draft_filled_then_published(api: Api) -> None:
    headers = await _signed_in(api)
    response = await _upload(api, headers, CORPUS / "flowable_leave.bpmn")
    assert response.status_code == 303
    location = str(response.headers["location"])
    assert location.endswith("?msg=imported")
    draft_id = location.split("?")[0].rsplit("/", 1)[-1]
    base = f"{DRAFTS}/{draft_id}"

    page = (await api.client.get(location)).text
    assert "Importado de flowable_leave.bpmn" in page
    assert "sugestão: <code>managers</code>" in page or "sugestão: `managers`" in page
    assert "flowable:formFieldValidation" in page  # the ignored extension, as a note

    refused = await api.client.post(f"{base}/publish", data={"row_version": "1"}, headers=headers)
    assert refused.status_code == 422
    assert refused.text.count("precisa de") >= 4  # every gap, not the first

    store = handles_of(api.platform).drafts
    await _post(api, headers, f"{base}/suggestions", index="all", row_version="1")
    draft = await store.get(draft_id)
    assert draft is not None and draft.document["nodes"][1]["queue"] == "managers"

    await _post(api, headers, f"{base}/header", name="Férias", protocol_prefix="FER",
                description="", row_version="2")  # fmt: skip
    await _post(api, headers, f"{base}/nodes/approve_task/properties", name="Aprovar",
                queue="purchase.managers", form_key="purchase.review", form_version="",
                row_version="3")  # fmt: skip
    await _post(api, headers, f"{base}/nodes/record_task/properties", name="Registrar",
                handler="purchase.notify", queue="", pending_queue="purchase.approval.operators",
                row_version="4")  # fmt: skip
    published = await _post(api, headers, f"{base}/publish", row_version="5")
    assert published.startswith("/cms/workflow/definitions/leave_request/versions/1")


async def test_a_refused_file_lists_each_problem_and_creates_no_draft(api: Api) -> None:
    headers = await _signed_in(api)
    before = len(await handles_of(api.platform).drafts.list_drafts())
    response = await _upload(api, headers, CORPUS / "refused" / "flowable_java_delegate.bpmn")
    assert response.status_code == 422
    text = response.text
    assert 'bpmn:serviceTask id="javaTask" line 5' in text.replace("&#34;", '"')
    assert 'bpmn:scriptTask id="script" line 6' in text.replace("&#34;", '"')
    assert len(await handles_of(api.platform).drafts.list_drafts()) == before
