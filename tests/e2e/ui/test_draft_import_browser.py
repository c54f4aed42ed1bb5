"""Importing a modeler's file into a draft in a real browser: the upload on the new-draft page,
the draft's import panel (gaps, suggestions, ignored extensions) and confirming a suggestion
from the keyboard; axe-core finds no serious violation on either page."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Browser, expect

from tests.e2e.ui.conftest import Site, new_page, serious_violations, shoot
from tests.e2e.ui.test_draft_editor import _editor_user, _enter, _keyboard_login

CAMUNDA = Path(__file__).parents[2] / "unit" / "bpmn" / "data" / "corpus" / "camunda7_request.bpmn"


async def test_an_uploaded_file_shows_its_gaps_and_a_suggestion_is_used(
    site: Site, browser: Browser
) -> None:
    await _editor_user(site)
    context, page = await new_page(browser)
    violations: dict[str, list[object]] = {}
    await _keyboard_login(page, site)
    await page.goto(f"{site.url}/cms/workflow/drafts/new")
    await page.get_by_label("Arquivo BPMN", exact=True).set_input_files(str(CAMUNDA))
    await _enter(page.get_by_role("button", name="Importar para um rascunho"))
    await expect(page.get_by_role("status")).to_contain_text("Rascunho criado a partir do arquivo")
    panel = page.locator("#imported")
    await expect(panel.get_by_role("heading", level=2)).to_have_text(
        "Importado de camunda7_request.bpmn"
    )
    await expect(panel.locator("li")).to_contain_text(["sugestão: `permit.register`"])
    violations["draft"] = await serious_violations(page)
    await shoot(page, "24-draft-imported")
    buttons = panel.get_by_role("button", name="Usar este valor")
    await expect(buttons).to_have_count(3)
    await _enter(buttons.nth(2))
    await expect(page.get_by_role("status")).to_contain_text("Sugestão usada.")
    await expect(
        page.locator("#imported").get_by_role("button", name="Usar este valor")
    ).to_have_count(2)
    violations["after"] = await serious_violations(page)
    await context.close()
    assert violations == {name: [] for name in violations}
