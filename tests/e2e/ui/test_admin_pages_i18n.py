"""The definition, draft editor and migration pages in a browser, in pt-BR at 1280 px and
390 px with JavaScript on and off (axe-core where JavaScript runs), and the same pages in
English when the browser asks for it (Accept-Language) or the person chooses it (/lang/en)."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, Page, expect

from core.identity import Directory
from tests.e2e.ui.conftest import (
    PASSWORD,
    PHONE_VIEW,
    SCREEN_IDS,
    VIEWS,
    Site,
    login,
    new_page,
    serious_violations,
    shoot,
)

ADMIN = "administradora"
VERSION = "/cms/workflow/definitions/diario.publicacao/versions/1"
PAGES = {
    "definitions": ("/cms/workflow/definitions", "Definições de fluxo", "Workflow definitions"),
    "version": (
        VERSION,
        "Diário Oficial — publicação de ato",
        "Diário Oficial — publicação de ato",
    ),
    "publish": ("/cms/workflow/definitions/publish", "Publicar definição", "Publish a definition"),
    "drafts": ("/cms/workflow/drafts", "Rascunhos de definições", "Definition drafts"),
    "new_draft": ("/cms/workflow/drafts/new", "Novo rascunho", "New draft"),
    "migration": (
        "/cms/workflow/operations/migrations",
        "Migrar processos entre versões",
        "Migrate cases between versions",
    ),
}


async def _admin(site: Site) -> None:
    platform = site.platform
    directory = Directory(
        platform.database, platform.clock, platform.ids, platform.registrations.permissions
    )
    grants = ("workflow.read", "workflow.publish", "workflow.tasks", "workflow.operate")
    await directory.ensure_profile("administracao", "administracao", grants)
    await directory.create_user(
        ADMIN, display_name="Administradora", profile="administracao", password=PASSWORD
    )


async def _overflow(page: Page) -> int:
    width: int = await page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    return width


@pytest.mark.parametrize(("viewport", "javascript"), VIEWS, ids=SCREEN_IDS)
async def test_the_admin_pages_read_in_portuguese(
    site: Site, browser: Browser, javascript: bool, viewport: dict[str, int]
) -> None:
    await _admin(site)
    context, page = await new_page(browser, viewport=viewport, java_script_enabled=javascript)
    await login(page, site, ADMIN)
    violations: dict[str, object] = {}
    overflow: dict[str, int] = {}
    for name, (path, heading, _english) in PAGES.items():
        await page.goto(f"{site.url}{path}")
        await expect(page.locator("html")).to_have_attribute("lang", "pt-BR")
        await expect(page.get_by_role("heading", level=1)).to_contain_text(heading)
        overflow[name] = await _overflow(page)
        if javascript:
            violations[name] = await serious_violations(page)
    await page.goto(f"{site.url}{VERSION}")
    lanes = page.locator("#lanes-heading ~ section.lane").first
    await expect(lanes.locator("dd").first).to_have_text("Início")
    await page.goto(f"{site.url}/cms/workflow/definitions")
    await expect(page.get_by_role("cell", name="Publicada").first).to_be_visible()
    await shoot(page, f"definitions-pt-{viewport['width']}-{'js' if javascript else 'nojs'}")
    await context.close()
    assert violations == {name: [] for name in violations}
    if viewport is PHONE_VIEW:
        assert overflow == {name: 0 for name in PAGES}


@pytest.mark.parametrize("how", ["accept-language", "chosen"])
async def test_the_same_pages_read_in_english(site: Site, browser: Browser, how: str) -> None:
    await _admin(site)
    locale = "en-US" if how == "accept-language" else "pt-BR"
    context, page = await new_page(browser, locale=locale)
    if how == "chosen":
        await page.goto(f"{site.url}/lang/en?next=/cms/login")
    await page.goto(f"{site.url}/cms/login")
    await page.get_by_label("User name").fill(ADMIN)
    await page.get_by_label("Password").fill(PASSWORD)
    await page.get_by_role("button", name="Sign in").click()
    await page.wait_for_url("**/cms/workflow/inbox")
    for path, _portuguese, english in PAGES.values():
        await page.goto(f"{site.url}{path}")
        await expect(page.locator("html")).to_have_attribute("lang", "en")
        await expect(page.get_by_role("heading", level=1)).to_contain_text(english)
    await page.goto(f"{site.url}{VERSION}")
    lanes = page.locator("#lanes-heading ~ section.lane").first
    await expect(lanes.locator("dd").first).to_have_text("Start")
    await expect(page.get_by_text("Etapas por raia")).to_have_count(0)
    await context.close()
