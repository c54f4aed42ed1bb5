"""The citizen's side in Chromium, in pt-BR, at 1280 px and 390 px, with JavaScript on and off:
a clerk issues the citizen's link from its confirmation page; the citizen, signed out, opens it
on the portal (styled) and on ``/public`` and reads the case and its deadline in Portuguese
without any personal data; a bad link, and too many requests, get the portal's own error
pages. axe (which needs JavaScript) finds nothing serious; no page scrolls sideways."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, expect

from services.workflow.public.routes import DEFAULT_RATE
from tests.e2e.api.esic_like import PERSONAL
from tests.e2e.ui.conftest import SCREEN_IDS, SCREENS, Site, login, new_page, shoot
from tests.e2e.ui.test_deadline_pages_browser import (
    DUE,
    VIEWPORTS,
    Checks,
    _request,
    esic_site,
)
from tests.e2e.ui.test_operations_pages import OPERATOR

__all__ = ["esic_site"]  # the fixture, shared with the deadline pages' tests

TOO_MANY = "Muitas consultas seguidas"


@pytest.mark.parametrize(("width", "javascript"), SCREENS, ids=SCREEN_IDS)
async def test_a_clerk_issues_the_link_and_the_citizen_follows_the_case_in_portuguese(
    esic_site: Site, browser: Browser, width: int, javascript: bool
) -> None:
    instance_id, protocol, _task = await _request(esic_site)
    options = {"viewport": VIEWPORTS[width], "java_script_enabled": javascript}
    context, page = await new_page(browser, **options)
    staff = Checks(page, javascript)
    await login(page, esic_site, OPERATOR)
    await page.goto(f"{esic_site.url}/cms/workflow/instances/{instance_id}")
    await page.get_by_role("link", name="Emitir o link do cidadão").click()
    heading = f"Link do cidadão para o processo {protocol}"
    await expect(page.get_by_role("heading", level=1)).to_have_text(heading)
    await staff("link-confirm")
    await page.get_by_label("Motivo").fill("Pedido do requerente por telefone")
    await page.get_by_role("button", name="Emitir o link").click()
    await expect(page.get_by_role("status")).to_contain_text("Link emitido.")
    await staff("link-issued")
    link = await page.get_by_label("Link para enviar ao requerente").input_value()
    await context.close()
    assert "/public/timeline/" in link

    context, citizen = await new_page(browser, **options)
    public = Checks(citizen, javascript)
    for name, url in (("portal", link.replace("/public/", "/portal/", 1)), ("public", link)):
        response = await citizen.goto(url)
        assert response is not None and response.status == 200
        await expect(citizen.get_by_role("heading", level=1)).to_contain_text(protocol)
        await expect(citizen.locator("body")).to_contain_text("Em análise")
        await public(name)
        html = await citizen.content()
        assert [value for value in PERSONAL.values() if str(value) in html] == []
        assert 'href="/cms' not in html
    await citizen.goto(link.replace("/public/", "/portal/", 1))
    await expect(citizen.locator("section.deadline-explain")).to_contain_text(DUE)
    await expect(citizen.locator("section.deadline-explain")).not_to_contain_text("Base legal")
    await shoot(citizen, f"81-portal-timeline-{width}-{'js' if javascript else 'nojs'}")

    response = await citizen.goto(f"{esic_site.url}/portal/timeline/not-a-signed-link")
    assert response is not None and response.status == 404
    await expect(citizen.get_by_role("heading", level=1)).to_have_text("Link inválido ou expirado")
    assert await citizen.locator('a[href^="/cms"]').count() == 0
    await public("portal-error")
    await context.close()
    staff.assert_clean()
    public.assert_clean()


@pytest.mark.parametrize(("width", "javascript"), SCREENS, ids=SCREEN_IDS)
async def test_too_many_requests_get_the_portals_own_429_page(
    site: Site, browser: Browser, width: int, javascript: bool
) -> None:
    context, citizen = await new_page(
        browser, viewport=VIEWPORTS[width], java_script_enabled=javascript
    )
    check = Checks(citizen, javascript)
    for _ in range(DEFAULT_RATE):
        await citizen.request.get(f"{site.url}/portal/timeline/not-a-signed-link")
    response = await citizen.goto(f"{site.url}/portal/timeline/not-a-signed-link")
    assert response is not None and response.status == 429
    assert int(response.headers["retry-after"]) > 0
    await expect(citizen.get_by_role("heading", level=1)).to_have_text(TOO_MANY)
    assert await citizen.locator('a[href^="/cms"]').count() == 0
    await check("portal-429")
    await context.close()
    check.assert_clean()
