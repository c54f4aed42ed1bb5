"""The flow pages the other browser tests read at 1280 px only, on a 390 px phone with JavaScript
on and off, in pt-BR: a refused publication (errors beside the node), comparing two versions,
the migration wizard from the choice of instances to its result, and a draft copied from a
published version. axe (which needs JavaScript) finds nothing serious; no page scrolls
sideways."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, expect

from tests.e2e.ui.conftest import Site, login, new_page, shoot
from tests.e2e.ui.test_admin_pages_i18n import ADMIN, _admin
from tests.e2e.ui.test_deadline_pages_browser import VIEWPORTS, Checks
from tests.e2e.ui.test_definition_pages import _publish, _with_review
from tests.e2e.ui.test_migration_wizard import KEY, _setup, _to_instances


@pytest.mark.parametrize("javascript", [True, False], ids=["390-js", "390-nojs"])
async def test_compare_migration_and_draft_pages_fit_a_phone(
    site: Site, browser: Browser, javascript: bool
) -> None:
    moved = await _setup(site, 2)
    await _admin(site)
    context, page = await new_page(browser, viewport=VIEWPORTS[390], java_script_enabled=javascript)
    check = Checks(page, javascript)
    await login(page, site, ADMIN)

    invalid = _with_review(outcomes={"approve": "approve", "reject": "nowhere"})
    await _publish(page, site, "invalida.json", invalid)
    await expect(page.get_by_role("alert")).to_contain_text("não foi publicado")
    await expect(page.locator("#node-review-errors")).to_contain_text("nowhere")
    await check("publish-refused")

    await page.goto(f"{site.url}/cms/workflow/definitions/{KEY}/compare?from=1&to=2")
    await expect(page.get_by_role("heading", level=1)).to_contain_text("Comparar versões")
    await check("compare")

    await _to_instances(page, site)
    await expect(page.get_by_role("heading", level=1)).to_contain_text("Passo")
    await check("instances")
    await page.get_by_role("button", name="Continuar: mapear etapas").click()
    await check("mapping")
    await page.locator("#map-triagem").select_option("analise")
    await page.get_by_role("button", name="Simular (nada muda)").click()
    await expect(page.get_by_role("status")).to_contain_text("2 processos seriam migrados")
    await check("dry-run")
    await page.get_by_label("Motivo").fill("Triagem passou a se chamar análise")
    await page.get_by_role("button", name="Migrar 2 processos").click()
    await expect(page.get_by_role("status")).to_contain_text("2 processos migrados")
    await check("result")
    await shoot(page, f"83-migration-result-390-{'js' if javascript else 'nojs'}")

    await page.goto(f"{site.url}/cms/workflow/definitions")
    await page.get_by_role("link", name=f"Editar como rascunho de {KEY} v2").click()
    await check("from-version")
    await page.get_by_role("button", name="Criar rascunho a partir da versão").click()
    await expect(page.get_by_role("status")).to_contain_text("a partir da versão publicada")
    await expect(page.locator("#node-analise")).to_be_visible()
    await check("draft")
    await context.close()
    check.assert_clean()
    for instance_id in moved:
        assert (await site.service.engine.status(instance_id)).current_nodes == ("analise",)


async def test_comparing_two_versions_without_javascript_at_1280(
    site: Site, browser: Browser
) -> None:
    await _setup(site, 1)
    await _admin(site)
    context, page = await new_page(browser, viewport=VIEWPORTS[1280], java_script_enabled=False)
    check = Checks(page, False)
    await login(page, site, ADMIN)
    await page.goto(f"{site.url}/cms/workflow/definitions/{KEY}/compare?from=1&to=2")
    await expect(page.get_by_role("heading", level=1)).to_contain_text("Comparar versões")
    await check("compare")
    await context.close()
    check.assert_clean()
