"""The admin pages' own number fields (parsed from forms and queries by the pages, not by the
boundary's typed parameters): a Unicode digit, a number past ``INTEGER`` or no number at all is
an answer a person can read (a 4xx page or the form again with its message), never a 500."""

from __future__ import annotations

from typing import Any

import pytest

from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api, start_purchase
from tests.e2e.api.human_helpers import user_id

BAD_NUMBERS = ["²", "2147483648", "99999999999999999999999", "-1", "abc"]
CSRF_COOKIE = "tramita_csrf"


async def _signed_in(api: Api) -> dict[str, str]:
    """The admin's session cookie and a CSRF header that matches the CSRF cookie."""
    session = await open_session(api.platform, user_id(api, "admin"))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    response = await api.client.get("/cms/workflow/drafts/new")
    assert response.status_code == 200, response.text
    return {"x-csrftoken": api.client.cookies[CSRF_COOKIE]}


def _readable(response: Any) -> None:
    assert response.status_code < 500, response.text[:500]
    assert "Traceback" not in response.text


async def _draft(api: Api, headers: dict[str, str]) -> str:
    response = await api.client.post(
        "/cms/workflow/drafts/from-version",
        data={"version": "purchase.approval@1"},
        headers=headers,
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
    return str(response.headers["location"]).split("?")[0].rsplit("/", 1)[-1]


@pytest.mark.parametrize("number", BAD_NUMBERS)
async def test_copying_a_version_with_a_bad_number_shows_the_form(api: Api, number: str) -> None:
    headers = await _signed_in(api)
    response = await api.client.post(
        "/cms/workflow/drafts/from-version",
        data={"version": f"purchase.approval@{number}"},
        headers=headers,
    )
    _readable(response)
    assert response.status_code in (400, 404, 422)


@pytest.mark.parametrize("number", BAD_NUMBERS)
async def test_a_draft_edit_with_a_bad_row_version_is_refused_readably(
    api: Api, number: str
) -> None:
    headers = await _signed_in(api)
    draft = await _draft(api, headers)
    response = await api.client.post(
        f"/cms/workflow/drafts/{draft}/header",
        data={"row_version": number, "name": "Compra"},
        headers=headers,
    )
    _readable(response)
    assert response.status_code == 409


@pytest.mark.parametrize("number", BAD_NUMBERS)
async def test_a_migration_form_with_bad_numbers_is_refused_readably(api: Api, number: str) -> None:
    headers = await _signed_in(api)
    instance = await start_purchase(api, 20_000)
    fields = {
        "definition": "purchase.approval",
        "from_version": number,
        "to_version": number,
        "instance_ids": instance["id"],
        "expected_versions": f"{instance['id']}:{number}",
    }
    for step in ("dry-run", "mapping", "run"):
        response = await api.client.post(
            f"/cms/workflow/operations/migrations/{step}", data=fields, headers=headers
        )
        _readable(response)


@pytest.mark.parametrize("number", BAD_NUMBERS)
async def test_the_inbox_with_a_bad_page_size_still_answers(api: Api, number: str) -> None:
    await _signed_in(api)
    response = await api.client.get("/cms/workflow/inbox", params={"limit": number})
    _readable(response)
