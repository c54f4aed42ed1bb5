"""``/public/diario`` in a real browser: pt-BR, at 1280 px and 390 px with JavaScript on and off,
accessible (axe-core, where JavaScript runs), never scrolling sideways."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from contracts.kernel import Actor
from modules.diario.domain import ActStatus
from modules.diario.editions import EditionDesk
from modules.diario.plugin import RUNTIME
from modules.diario.records import ActStore
from tests.e2e.ui.conftest import SCREEN_IDS, SCREENS, Site, new_page, serious_violations, shoot
from tests.modules.gazette_kit import gazette_config

VIEWPORTS = {1280: {"width": 1280, "height": 900}, 390: {"width": 390, "height": 844}}


async def _overflow(page: Page) -> int:
    width: int = await page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    return width


@pytest.mark.parametrize(("width", "javascript"), SCREENS, ids=SCREEN_IDS)
async def test_editions_list_and_verification_are_accessible_at_both_sizes(
    site: Site, browser: Browser, tmp_path: Path, width: int, javascript: bool
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
    context, page = await new_page(
        browser, viewport=VIEWPORTS[width], java_script_enabled=javascript
    )
    violations: dict[str, list[dict[str, Any]]] = {}
    overflow: dict[str, int] = {}
    suffix = f"{width}-{'js' if javascript else 'nojs'}"

    await page.goto(f"{site.url}/public/diario")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Edições do Diário Oficial")
    await expect(page.get_by_role("link", name=f"PDF da edição {edition.number}")).to_be_visible()
    if javascript:
        violations["list"] = await serious_violations(page)
    await shoot(page, f"diario-01-editions-{suffix}")
    overflow["list"] = await _overflow(page)

    await page.get_by_role("link", name="Verificar uma edição").click()
    await page.get_by_label("Código de verificação").fill(edition.verification_code or "")
    await page.get_by_role("button", name="Verificar").click()
    await expect(page.get_by_role("status")).to_contain_text("Edição autêntica")
    await expect(page.get_by_role("status")).to_contain_text("Prefeitura de Teste")
    overflow["verified"] = await _overflow(page)
    if javascript:
        violations["verified"] = await serious_violations(page)
    await shoot(page, f"diario-02-verified-{suffix}")

    await page.goto(f"{site.url}/public/diario/verificar/ZZZZ-ZZZZ-ZZZZ")
    await expect(page.get_by_role("alert")).to_contain_text("Nenhuma edição tem este código")
    await expect(page.locator("html")).to_have_attribute("lang", "pt-BR")
    overflow["unknown"] = await _overflow(page)
    if javascript:
        violations["unknown"] = await serious_violations(page)
    await context.close()
    assert violations == {name: [] for name in violations}
    assert overflow == {"list": 0, "verified": 0, "unknown": 0}
