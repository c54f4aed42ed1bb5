"""``/public/diario`` in a real browser: pt-BR, accessible (axe-core), usable at 390 px."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Browser, expect

from contracts.kernel import Actor
from modules.diario.domain import ActStatus
from modules.diario.editions import EditionDesk
from modules.diario.plugin import RUNTIME
from modules.diario.records import ActStore
from tests.e2e.ui.conftest import Site, new_page, serious_violations, shoot
from tests.modules.gazette_kit import gazette_config

PHONE = {"width": 390, "height": 844}


async def test_editions_list_and_verification_are_accessible_on_a_phone(
    site: Site, browser: Browser, tmp_path: Path
) -> None:
    config = gazette_config(tmp_path)
    RUNTIME.bind(site.platform, config)
    store = ActStore(site.platform, config)
    act = await store.draft(title="Portaria nº 9/2026", body="Texto.", author_id="autora")
    await store.follow(act.id, ActStatus.APPROVED, instance_id="manual")
    stamp = await store.stamp(act.id)
    edition = await EditionDesk(site.platform, config).compose(
        stamp.edition_number, actor=Actor(id="publisher")
    )
    context, page = await new_page(browser, viewport=PHONE)
    violations: dict[str, list[object]] = {}

    await page.goto(f"{site.url}/public/diario")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Edições do Diário Oficial")
    await expect(page.get_by_role("link", name=f"PDF da edição {edition.number}")).to_be_visible()
    violations["list"] = await serious_violations(page)
    await shoot(page, "diario-01-editions-phone")
    assert await page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    await page.get_by_role("link", name="Verificar uma edição").click()
    await page.get_by_label("Código de verificação").fill(edition.verification_code or "")
    await page.get_by_role("button", name="Verificar").click()
    await expect(page.get_by_role("status")).to_contain_text("Edição autêntica")
    await expect(page.get_by_role("status")).to_contain_text("Prefeitura de Teste")
    assert await page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    violations["verified"] = await serious_violations(page)
    await shoot(page, "diario-02-verified-phone")

    await page.goto(f"{site.url}/public/diario/verificar/ZZZZ-ZZZZ-ZZZZ")
    await expect(page.get_by_role("alert")).to_contain_text("Nenhuma edição tem este código")
    violations["unknown"] = await serious_violations(page)
    await context.close()
    assert violations == {name: [] for name in violations}
