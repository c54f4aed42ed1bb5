"""The editor's import of a file whose steps are inside an embedded sub-process: the import
panel lists the inner steps' gaps and offers their suggestions linked to the sub-process's
page, and confirming them fills the inner steps of the draft, one of them returning to that
page (both databases)."""

from __future__ import annotations

import re
from pathlib import Path

from services.workflow.handles import handles_of
from tests.e2e.api.conftest import Api
from tests.e2e.api.test_draft_import_pages import DRAFTS, _post, _signed_in, _upload

FILE = Path(__file__).parents[2] / "unit" / "bpmn" / "data" / "corpus" / "camunda7_subprocess.bpmn"


async def test_the_inner_steps_gaps_are_listed_and_their_suggestions_fill_them(api: Api) -> None:
    headers = await _signed_in(api)
    response = await _upload(api, headers, FILE)
    assert response.status_code == 303
    location = str(response.headers["location"])
    draft_id = location.split("?")[0].rsplit("/", 1)[-1]
    base = f"{DRAFTS}/{draft_id}"

    page = (await api.client.get(location)).text
    assert "O nó `analise \u203a conferir` precisa de uma fila" in page.replace("&#96;", "`")
    assert f'href="{base}?scope=analise#node-conferir"' in page
    assert f'href="{base}?scope=analise#node-registrar"' in page

    await _post(api, headers, f"{base}/suggestions", index="all", row_version="1")
    draft = await handles_of(api.platform).drafts.get(draft_id)
    assert draft is not None
    inner = {n["id"]: n for n in draft.document["nodes"][1]["nodes"]}
    assert (inner["conferir"]["queue"], inner["conferir"]["form"]) == ("permit_reviewers", "review")
    assert inner["registrar"]["handler"] == "permit.register"
    after = (await api.client.get(base)).text
    assert "sugestão: `permit.register`" not in after.replace("&#96;", "`")


def _suggestion_index(page: str, base: str, node: str) -> str:
    """The index the "Use this value" form of ``node``'s suggestion posts."""
    forms = re.findall(r'name="index" value="(\d+)">\s*<a href="([^"]+)"', page)
    (index,) = [i for i, href in forms if href == f"{base}?scope=analise#node-{node}"]
    return index


async def test_using_one_inner_suggestion_returns_to_its_subprocess_page(api: Api) -> None:
    headers = await _signed_in(api)
    location = str((await _upload(api, headers, FILE)).headers["location"])
    base = location.split("?")[0]
    index = _suggestion_index((await api.client.get(location)).text, base, "registrar")

    back = await _post(api, headers, f"{base}/suggestions", index=index, row_version="1")
    assert back == f"{base}?msg=suggestion&scope=analise&node=registrar#node-registrar"
    page = (await api.client.get(back)).text
    assert "Sugestão usada." in page
    assert '<nav aria-label="Onde você está">' in page
    assert 'id="node-registrar"' in page
    draft = await handles_of(api.platform).drafts.get(base.rsplit("/", 1)[-1])
    assert draft is not None
    assert draft.document["nodes"][1]["nodes"][2]["handler"] == "permit.register"
