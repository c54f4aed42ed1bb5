"""The draft editor's add-a-step form over HTTP (both backends), without a browser: the type
select offers each node type as its code (the value sent back) under a translated label, so a
step added by choosing "Decisão" is stored as ``exclusive`` in either language; a translated
label sent back as the type, or an id with a letter outside ``[a-z0-9_]``, is refused with the
field's message in the visitor's language and the draft is left as it was."""

from __future__ import annotations

import html
import re
from typing import Any

from services.workflow.handles import handles_of
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api
from tests.e2e.api.human_helpers import user_id

CSRF_COOKIE = "tramita_csrf"
DRAFTS = "/cms/workflow/drafts"


async def _signed_in(api: Api, language: str = "pt-BR") -> dict[str, str]:
    """The admin's session cookie and a CSRF header matching the CSRF cookie."""
    session = await open_session(api.platform, user_id(api, "admin"))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    response = await api.client.get(f"{DRAFTS}/new", headers={"accept-language": language})
    assert response.status_code == 200, response.text
    return {"x-csrftoken": api.client.cookies[CSRF_COOKIE], "accept-language": language}


async def _new_draft(api: Api, headers: dict[str, str]) -> str:
    response = await api.client.post(
        f"{DRAFTS}/new",
        data={"key": "editor.rota", "name": "Rota", "protocol_prefix": "ROT"},
        headers=headers,
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
    return str(response.headers["location"]).split("?")[0].rsplit("/", 1)[-1]


def _type_options(page: str) -> dict[str, str]:
    """The add form's type select: label → value."""
    select = re.search(r'<select id="f-add-node_type".*?</select>', page, re.S)
    assert select is not None
    pairs = re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', select.group(0))
    return {html.unescape(label): value for value, label in pairs}


def _row_version(page: str) -> str:
    found = re.search(r'name="row_version" value="(\d+)"', page)
    assert found is not None
    return found.group(1)


async def _add(api: Api, draft: str, headers: dict[str, str], **fields: str) -> Any:
    page = (await api.client.get(f"{DRAFTS}/{draft}", headers=headers)).text
    data = {"node_id": "", "node_type": "", "name": "", "after": "start", **fields}
    data["row_version"] = _row_version(page)
    return await api.client.post(
        f"{DRAFTS}/{draft}/nodes", data=data, headers=headers, follow_redirects=False
    )


async def _node_types(api: Api, draft: str) -> dict[str, str]:
    stored = await handles_of(api.platform).drafts.get(draft)
    assert stored is not None
    return {str(n["id"]): str(n["type"]) for n in stored.document["nodes"]}


async def test_a_step_chosen_by_its_portuguese_label_is_added_with_its_type_code(api: Api) -> None:
    headers = await _signed_in(api)
    draft = await _new_draft(api, headers)
    page = (await api.client.get(f"{DRAFTS}/{draft}", headers=headers)).text
    options = _type_options(page)
    assert options["Decisão"] == "exclusive"
    assert options["Etapa automática"] == "service_task"
    assert options["Tarefa de pessoa"] == "user_task"

    response = await _add(
        api, draft, headers, node_id="rota", node_type=options["Decisão"], name="Decidir"
    )

    assert response.status_code == 303, response.text
    assert "msg=added" in response.headers["location"]
    assert (await _node_types(api, draft))["rota"] == "exclusive"
    shown = (await api.client.get(response.headers["location"], headers=headers)).text
    assert "Etapa adicionada." in shown


async def test_the_same_step_is_added_from_the_english_page(api: Api) -> None:
    headers = await _signed_in(api, "en")
    draft = await _new_draft(api, headers)
    page = (await api.client.get(f"{DRAFTS}/{draft}", headers=headers)).text
    options = _type_options(page)
    assert options["Decision"] == "exclusive"

    response = await _add(api, draft, headers, node_id="rota", node_type=options["Decision"])

    assert response.status_code == 303, response.text
    assert (await _node_types(api, draft))["rota"] == "exclusive"


async def test_a_translated_label_sent_as_the_type_is_refused_and_nothing_is_saved(
    api: Api,
) -> None:
    headers = await _signed_in(api)
    draft = await _new_draft(api, headers)

    response = await _add(api, draft, headers, node_id="rota", node_type="Decisão")

    assert response.status_code == 422
    assert "A alteração não foi salva: 1 problema" in response.text
    assert "Escolha um tipo de etapa." in response.text
    assert 'value="rota"' in response.text  # what was typed comes back
    assert "rota" not in await _node_types(api, draft)


async def test_an_id_with_an_accented_letter_is_refused_in_the_visitors_language(
    api: Api,
) -> None:
    pt = await _signed_in(api)
    draft = await _new_draft(api, pt)
    refused = await _add(api, draft, pt, node_id="rotaão", node_type="exclusive")
    assert refused.status_code == 422
    assert "O identificador deve ter letras minúsculas" in refused.text

    en = await _signed_in(api, "en")
    refused = await _add(api, draft, en, node_id="rotaão", node_type="exclusive")
    assert refused.status_code == 422
    assert "The identifier must have lower-case letters" in refused.text
    assert "rotaão" not in await _node_types(api, draft)


async def test_an_outcome_is_connected_with_the_name_people_read(api: Api) -> None:
    headers = await _signed_in(api)
    draft = await _new_draft(api, headers)
    added = await _add(
        api, draft, headers, node_id="analise", node_type="approval", name="Analisar"
    )
    assert added.status_code == 303, added.text
    page = (await api.client.get(f"{DRAFTS}/{draft}", headers=headers)).text
    assert "Nome do resultado" in page
    response = await api.client.post(
        f"{DRAFTS}/{draft}/nodes/analise/connect",
        data={
            "target": "end",
            "outcome": "deferir",
            "outcome_name": "Deferir o pedido",
            "condition": "",
            "row_version": _row_version(page),
        },
        headers=headers,
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
    stored = await handles_of(api.platform).drafts.get(draft)
    assert stored is not None
    [node] = [n for n in stored.document["nodes"] if n["id"] == "analise"]
    assert (node["outcomes"], node["outcome_names"]) == (
        {"deferir": "end"},
        {"deferir": "Deferir o pedido"},
    )
