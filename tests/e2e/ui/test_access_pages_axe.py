"""axe-core on the pages added for access levels and identity protection (issue #23), in
Chromium, pt-BR, 1280 px with JavaScript: the instance page with its "Acesso" section as a
classifier sees it, the document upload form with its level and ground, the same form sent back
with an error on its field, and the citizen's e-SIC request form with "Preservar minha
identidade", empty and refused. Serious and critical violations fail the test."""

from __future__ import annotations

from playwright.async_api import Browser, expect

from core.identity import Directory
from tests.e2e.ui.conftest import DESK_VIEW, PASSWORD, Site, login, new_page, serious_violations


async def test_the_access_document_and_request_forms_pass_axe(site: Site, browser: Browser) -> None:
    platform = site.platform
    directory = Directory(
        platform.database, platform.clock, platform.ids, platform.registrations.permissions
    )
    grants = ("workflow.read", "workflow.tasks", "workflow.classify")
    await directory.ensure_profile("sigilo", "sigilo", grants)
    await directory.create_user(
        "classificadora", display_name="Classificadora", profile="sigilo", password=PASSWORD
    )
    act = await site.submit_act()
    assert act.instance_id is not None
    instance = f"{site.url}/cms/workflow/instances/{act.instance_id}"
    context, page = await new_page(browser, viewport=DESK_VIEW)
    violations = {}

    await login(page, site, "classificadora")
    await page.goto(instance)
    access = page.get_by_role("region", name="Acesso")
    await expect(access).to_be_visible()
    violations["instance"] = await serious_violations(page)

    await page.goto(f"{instance}/documents/new")
    await expect(page.get_by_role("heading", level=1)).to_be_visible()
    violations["upload"] = await serious_violations(page)
    await page.locator("#f-level").select_option(label="Restrito")
    await page.locator("#f-file").set_input_files(
        files=[
            {"name": "parecer.pdf", "mimeType": "application/pdf", "buffer": b"%PDF-1.4\n%%EOF\n"}
        ]
    )
    # The Diário's flow declares no document type: past the browser's own check, the server
    # refuses the form and sends it back with the summary and the error on the field.
    await page.evaluate("document.querySelector('form.stack').noValidate = true")
    await page.locator("form.stack button[type=submit]").click()
    await expect(page.get_by_role("alert")).to_contain_text("O documento não foi adicionado")
    await expect(page.locator("#type_key-error")).to_be_visible()
    violations["upload-refused"] = await serious_violations(page)

    await page.goto(f"{site.url}/public/esic/pedido")
    await expect(page.get_by_label("Preservar minha identidade")).to_be_visible()
    violations["request"] = await serious_violations(page)
    await page.get_by_label("E-mail").fill("sem-arroba")
    await page.evaluate("document.querySelector('form.stack').noValidate = true")
    await page.get_by_role("button", name="Enviar o pedido").click()
    await expect(page.get_by_role("alert")).to_contain_text("O pedido não foi enviado")
    violations["request-refused"] = await serious_violations(page)
    await context.close()
    assert all(found == [] for found in violations.values()), violations
