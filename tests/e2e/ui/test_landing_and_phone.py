"""The way in and the small screen: ``/`` and ``/cms/workflow`` lead somewhere, the citizen's
errors stay in the portal's style, a favicon exists, and the pages fit a 390 px phone."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, Page, expect

from services.workflow.public.links import sign_link
from tests.e2e.ui.conftest import Site, login, new_page, serious_violations, shoot

PHONE = {"width": 390, "height": 844}


async def _overflow(page: Page) -> int:
    """How far the page is wider than the viewport (0 when nothing scrolls sideways)."""
    width: int = await page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    return width


async def test_the_root_points_to_the_admin_pages_and_explains_the_portal(
    site: Site, browser: Browser
) -> None:
    context, page = await new_page(browser)
    response = await page.goto(f"{site.url}/")
    assert response is not None and response.status == 200
    assert response.headers["content-type"].startswith("text/html")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Tramita")
    await expect(page.get_by_role("heading", name="Cidadãos")).to_be_visible()
    violations = await serious_violations(page)
    await page.get_by_role("link", name="Entrar nas páginas de trabalho").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Entrar")
    await context.close()
    assert violations == []


@pytest.mark.parametrize("path", ["/cms", "/cms/workflow"])
async def test_the_admin_root_opens_the_inbox(site: Site, browser: Browser, path: str) -> None:
    context, page = await new_page(browser)
    await login(page, site, "revisor")
    await page.goto(f"{site.url}{path}")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Caixa de entrada")
    assert page.url.endswith("/cms/workflow/inbox")
    await context.close()


async def test_the_favicon_is_served(site: Site, browser: Browser) -> None:
    context, page = await new_page(browser)
    response = await page.request.get(f"{site.url}/favicon.ico")
    assert response.status == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    assert "<svg" in await response.text()
    await context.close()


@pytest.mark.parametrize("javascript", [True, False])
async def test_a_bad_portal_link_gets_the_portals_own_error_page(
    site: Site, browser: Browser, javascript: bool
) -> None:
    context, page = await new_page(browser, java_script_enabled=javascript)
    response = await page.goto(f"{site.url}/portal/timeline/not-a-signed-link")
    assert response is not None and response.status == 404
    await expect(page.get_by_role("heading", level=1)).to_have_text("Link inválido ou expirado")
    assert await page.locator('a[href^="/cms"]').count() == 0
    assert "Caixa de entrada" not in await page.content()
    if javascript:
        assert await serious_violations(page) == []
    await context.close()


@pytest.mark.parametrize("javascript", [True, False])
async def test_the_pages_fit_a_390_px_phone(site: Site, browser: Browser, javascript: bool) -> None:
    act = await site.submit_act("Portaria 12 de nomeação de servidores da Secretaria de Saúde")
    context, page = await new_page(browser, viewport=PHONE, java_script_enabled=javascript)
    overflow: dict[str, int] = {}
    await page.goto(f"{site.url}/")
    overflow["landing"] = await _overflow(page)
    await page.goto(f"{site.url}/cms/login")
    overflow["login"] = await _overflow(page)
    await login(page, site, "revisor")
    overflow["inbox"] = await _overflow(page)
    row = page.get_by_role("row").filter(has_text="Revisar")
    await row.get_by_role("button", name="Assumir").click()
    await expect(page.get_by_role("status")).to_have_text("Tarefa assumida.")
    overflow["inbox-claimed"] = await _overflow(page)
    if javascript:
        await shoot(page, "phone-inbox")
    await page.get_by_role("link", name="Revisar").click()
    overflow["task"] = await _overflow(page)
    await page.goto(f"{site.url}/cms/workflow/instances/{act.instance_id}")
    overflow["instance"] = await _overflow(page)
    view = await site.service.engine.status(act.instance_id or "")
    token = sign_link(site.platform.settings.secret_key, site.platform.clock, view.protocol)
    await page.goto(f"{site.url}/portal/timeline/{token}")
    overflow["portal"] = await _overflow(page)
    await context.close()
    assert overflow == {name: 0 for name in overflow}


async def test_pages_speak_portuguese_and_english_by_choice_or_by_the_browser(
    site: Site, browser: Browser
) -> None:
    context, page = await new_page(browser, locale="en-US")
    await page.goto(f"{site.url}/cms/login")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Sign in")
    assert await page.get_attribute("html", "lang") == "en"
    await page.get_by_role("link", name="Português").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Entrar")
    assert await page.get_attribute("html", "lang") == "pt-BR"
    assert page.url.endswith("/cms/login")
    await login(page, site, "revisor")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Caixa de entrada")
    await page.get_by_role("link", name="English").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Inbox")
    violations = await serious_violations(page)
    await context.close()
    assert violations == []


async def test_the_language_link_never_leaves_the_site(site: Site, browser: Browser) -> None:
    context, page = await new_page(browser)
    response = await page.request.get(f"{site.url}/lang/en?next=//evil.example/x", max_redirects=0)
    assert response.status == 303
    assert response.headers["location"] == "/"
    unknown = await page.request.get(f"{site.url}/lang/xx", max_redirects=0)
    assert unknown.status == 404
    await context.close()
