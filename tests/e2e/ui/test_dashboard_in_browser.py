"""The deadlines dashboard in Chromium: pt-BR, 1280 px and 390 px, JavaScript on and off — the
SVG chart is named for screen readers, the table says the same numbers, the CSV link is there,
nothing scrolls sideways on a phone, and axe finds no serious violation."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, expect

from core.identity import Directory
from tests.e2e.ui.conftest import (
    PASSWORD,
    SCREEN_IDS,
    VIEWS,
    Site,
    login,
    new_page,
    serious_violations,
    shoot,
)


async def _supervisor(site: Site) -> str:
    platform = site.platform
    directory = Directory(
        platform.database, platform.clock, platform.ids, platform.registrations.permissions
    )
    await directory.ensure_profile(
        "supervisao", "supervisao", ("workflow.read", "workflow.tasks", "workflow.admin")
    )
    await directory.create_user(
        "supervisora", display_name="Supervisora", profile="supervisao", password=PASSWORD
    )
    return "supervisora"


@pytest.mark.parametrize(("viewport", "javascript"), VIEWS, ids=SCREEN_IDS)
async def test_a_supervisor_reads_the_dashboard_per_queue_and_per_definition(
    site: Site, browser: Browser, javascript: bool, viewport: dict[str, int]
) -> None:
    await site.submit_act("Portaria 1")
    await site.submit_act("Portaria 2")
    username = await _supervisor(site)
    context, page = await new_page(browser, viewport=viewport, java_script_enabled=javascript)
    await login(page, site, username)
    await page.get_by_role("link", name="Painel de prazos").click()
    await expect(page.get_by_role("heading", level=1)).to_contain_text("Painel de prazos")
    chart = page.get_by_role("img", name="Tarefas abertas por fila")
    await expect(chart).to_be_visible()
    table = page.locator("table").first
    await expect(table.locator("caption")).to_contain_text("Tarefas abertas, prazos e respostas")
    await expect(table.locator("tbody")).to_contain_text("Diário Oficial — revisão")
    await expect(page.get_by_role("link", name="Baixar estes números (CSV)")).to_be_visible()
    overflow: int = await page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0
    if javascript:
        assert await serious_violations(page) == []
    await page.get_by_role("link", name="Por definição").click()
    await expect(page.get_by_role("img", name="Tarefas abertas por definição")).to_be_visible()
    await expect(page.locator("#versions-heading")).to_have_text("Definições e versões")
    if javascript:
        assert await serious_violations(page) == []
    await shoot(page, f"dashboard-{viewport['width']}-{'js' if javascript else 'nojs'}")
    await context.close()
