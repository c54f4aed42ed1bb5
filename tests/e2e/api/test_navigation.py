"""The admin layout's navigation, over HTTP with a session cookie (both backends): the links to
the background operations and to the units appear for those who may open them, and the way in
(``/`` and ``/cms/workflow``) still leads to the admin pages."""

from __future__ import annotations

import re

from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api
from tests.e2e.api.human_helpers import user_id

NAV = re.compile(r'<nav aria-label="Principal">(.*?)</nav>', re.S)


async def _nav_as(api: Api, user: str, path: str = "/cms/workflow/inbox") -> str:
    api.client.cookies.clear()
    session = await open_session(api.platform, user_id(api, user))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    response = await api.client.get(path)
    assert response.status_code == 200, response.text
    found = NAV.search(response.text)
    assert found is not None
    return found.group(1)


async def test_an_administrator_sees_operations_and_units_in_the_navigation(api: Api) -> None:
    nav = await _nav_as(api, "admin")
    assert '<a href="/cms/workflow/operations">Operações</a>' in nav
    assert '<a href="/cms/workflow/units">Unidades</a>' in nav
    assert '<a href="/cms/workflow/operations/dead-letters">Mensagens mortas</a>' in nav
    units = await api.client.get("/cms/workflow/units")
    assert units.status_code == 200
    assert 'href="/cms/workflow/units" aria-current="page"' in units.text
    operations = await api.client.get("/cms/workflow/operations")
    assert operations.status_code == 200
    assert 'href="/cms/workflow/operations" aria-current="page"' in operations.text


async def test_a_clerk_sees_operations_but_not_units(api: Api) -> None:
    nav = await _nav_as(api, "manager")
    assert '<a href="/cms/workflow/operations">Operações</a>' in nav
    assert "/cms/workflow/units" not in nav
    assert (await api.client.get("/cms/workflow/units")).status_code == 403


async def test_the_dead_letter_page_is_not_marked_as_the_operations_list(api: Api) -> None:
    nav = await _nav_as(api, "admin", "/cms/workflow/operations/dead-letters")
    assert 'href="/cms/workflow/operations" aria-current' not in nav
    assert 'href="/cms/workflow/operations/dead-letters" aria-current="page"' in nav


async def test_the_way_in_leads_to_the_admin_pages(api: Api) -> None:
    api.client.cookies.clear()
    landing = await api.client.get("/")
    assert landing.status_code == 200
    assert 'href="/cms/workflow/inbox"' in landing.text
    assert "Operações" not in landing.text  # no navigation before signing in
    home = await api.client.get("/cms/workflow", follow_redirects=False)
    assert home.status_code == 303
    assert home.headers["location"] == "/cms/workflow/inbox"
    nav = await _nav_as(api, "manager", "/cms/workflow/inbox")
    assert 'href="/cms/workflow/inbox" aria-current="page"' in nav
