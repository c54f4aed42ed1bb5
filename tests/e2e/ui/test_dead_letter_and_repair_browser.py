"""Giving up a dead-lettered step and repairing a case in Chromium, in pt-BR, at 1280 px and
390 px, with JavaScript on and off: the dead letters list, the give-up confirmation, the case
page's "Ações" and the repair confirmation, each with the notice that says it was done. axe
(which needs JavaScript) finds nothing serious; no page scrolls sideways."""

from __future__ import annotations

from datetime import timedelta

import pytest
from playwright.async_api import Browser, expect

from core.clock import FixedClock
from tests.e2e.ui.conftest import SCREEN_IDS, SCREENS, login, new_page, shoot
from tests.e2e.ui.test_deadline_pages_browser import VIEWPORTS, Checks
from tests.e2e.ui.test_operations_pages import OPERATOR, OpsSite, ops_site
from tests.fakes.purchase import retryable

__all__ = ["ops_site"]  # the fixture, shared with the operations pages' tests


@pytest.mark.parametrize(("width", "javascript"), SCREENS, ids=SCREEN_IDS)
async def test_an_operator_gives_up_a_dead_lettered_step_and_repairs_another_case(
    ops_site: OpsSite, browser: Browser, clock: FixedClock, width: int, javascript: bool
) -> None:
    ops_site.purchase.stock.fail_next.extend([retryable() for _ in range(5)])
    failing = await ops_site.start_purchase(500)
    for _ in range(5):
        clock.advance(timedelta(seconds=31))
        await ops_site.service.delivery.drain()
    waiting = await ops_site.start_purchase(20_000)
    protocol = await ops_site.protocol_of(waiting)
    context, page = await new_page(
        browser, viewport=VIEWPORTS[width], java_script_enabled=javascript
    )
    check = Checks(page, javascript)
    await login(page, ops_site, OPERATOR)

    await page.get_by_role("link", name="Mensagens mortas").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Mensagens mortas")
    await check("dead-letters")
    await page.get_by_role("link", name="Abandonar a etapa reserve_stock").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text(
        "Abandonar a etapa reserve_stock"
    )
    await check("give-up")
    await page.get_by_label("Motivo").fill("Fornecedor encerrou o contrato")
    await page.get_by_role("button", name="Abandonar a etapa").click()
    await expect(page.get_by_role("status")).to_have_text(
        "A etapa foi abandonada; o processo falhou."
    )
    await check("dead-letters-after")

    await page.goto(f"{ops_site.url}/cms/workflow/instances/{waiting}")
    await check("instance")
    await page.get_by_role("link", name="Reparar: mover uma posição para outra etapa").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text(
        f"Reparar o processo {protocol}"
    )
    await expect(page.get_by_label("Etapa de destino")).to_be_visible()
    await check("repair")
    await shoot(page, f"82-ops-repair-{width}-{'js' if javascript else 'nojs'}")
    await page.get_by_label("Motivo").fill("Refazer a aprovação")
    await page.get_by_role("button", name="Mover", exact=True).click()
    await expect(page.get_by_role("status")).to_have_text(
        "Processo reparado: a posição foi movida."
    )
    await expect(page.get_by_role("table", name="Registros de auditoria")).to_contain_text(
        "Refazer a aprovação"
    )
    await check("instance-repaired")
    await context.close()
    await ops_site.service.delivery.drain()
    assert (await ops_site.service.engine.status(failing)).status == "failed"
    check.assert_clean()
