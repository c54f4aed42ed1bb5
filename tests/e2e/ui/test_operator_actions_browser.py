"""Operator actions in Chromium, in pt-BR: cancel a case from its page and manage a queue's
members (each at 1280 px and 390 px, JavaScript on and off, axe where it runs), and run a
dead-lettered step again (390 px) — each through its confirmation page, with the notice that
says it was done; no page scrolls sideways."""

from __future__ import annotations

from datetime import timedelta

import pytest
from playwright.async_api import Browser, Page, expect

from core.clock import FixedClock
from core.identity import Directory
from tests.e2e.ui.conftest import (
    PASSWORD,
    SCREEN_IDS,
    SCREENS,
    login,
    new_page,
    serious_violations,
    shoot,
)
from tests.e2e.ui.test_operations_pages import OPERATOR, OpsSite, ops_site
from tests.fakes.purchase import retryable

__all__ = ["ops_site"]  # the fixture, shared with the operations pages' tests

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


async def _overflow(page: Page) -> int:
    width: int = await page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    return width


@pytest.mark.parametrize(("width", "javascript"), SCREENS, ids=SCREEN_IDS)
async def test_an_operator_cancels_a_case_after_confirming_with_a_reason(
    ops_site: OpsSite, browser: Browser, width: int, javascript: bool
) -> None:
    instance_id = await ops_site.start_purchase(20_000)
    protocol = await ops_site.protocol_of(instance_id)
    context, page = await new_page(
        browser, java_script_enabled=javascript, viewport=DESKTOP if width == 1280 else PHONE
    )
    await login(page, ops_site, OPERATOR)
    await page.goto(f"{ops_site.url}/cms/workflow/instances/{instance_id}")
    await page.get_by_role("link", name="Cancelar o processo").click()

    await expect(page.get_by_role("heading", level=1)).to_have_text(
        f"Cancelar o processo {protocol}"
    )
    violations = await serious_violations(page) if javascript else []
    overflow = await _overflow(page)
    await shoot(page, f"43-ops-cancel-confirm-{width}-{'js' if javascript else 'nojs'}")
    await page.get_by_label("Motivo").fill("Pedido registrado em duplicidade")
    await page.get_by_role("button", name="Cancelar o processo").click()

    await expect(page.get_by_role("status")).to_have_text("Processo cancelado.")
    await expect(page.get_by_role("definition").first).to_have_text("Cancelado")
    await expect(page.get_by_role("table", name="Registros de auditoria")).to_contain_text(
        "Pedido registrado em duplicidade"
    )
    await context.close()
    assert (await ops_site.service.engine.status(instance_id)).status == "cancelled"
    assert violations == [] and overflow == 0


async def test_an_operator_runs_a_dead_lettered_step_again(
    ops_site: OpsSite, browser: Browser, clock: FixedClock
) -> None:
    ops_site.purchase.stock.fail_next.extend([retryable() for _ in range(5)])
    instance_id = await ops_site.start_purchase(500)
    for _ in range(5):
        clock.advance(timedelta(seconds=31))
        await ops_site.service.delivery.drain()
    context, page = await new_page(browser, viewport=PHONE)
    await login(page, ops_site, OPERATOR)
    await page.get_by_role("link", name="Mensagens mortas").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Mensagens mortas")
    violations = {"list": await serious_violations(page)}
    await page.get_by_role("link", name="Executar de novo a etapa reserve_stock").click()

    await expect(page.get_by_role("heading", level=1)).to_have_text(
        "Executar de novo a etapa reserve_stock"
    )
    violations["confirm"] = await serious_violations(page)
    overflow = await _overflow(page)
    await shoot(page, "44-ops-dead-letter-reprocess-confirm")
    await page.get_by_label("Motivo").fill("Estoque restabelecido")
    await page.get_by_role("button", name="Executar a etapa de novo").click()
    await expect(page.get_by_role("status")).to_have_text("Etapa reenviada para processamento.")
    await context.close()
    await ops_site.service.delivery.drain()
    assert (await ops_site.service.engine.status(instance_id)).status == "completed"
    assert violations == {"list": [], "confirm": []} and overflow == 0


async def test_an_operator_gives_up_selected_dead_letters_and_sees_each_result(
    ops_site: OpsSite, browser: Browser, clock: FixedClock
) -> None:
    ops_site.purchase.stock.fail_next.extend([retryable() for _ in range(10)])
    first = await ops_site.start_purchase(500)
    second = await ops_site.start_purchase(500)
    for _ in range(5):
        clock.advance(timedelta(seconds=31))
        await ops_site.service.delivery.drain()
    context, page = await new_page(browser, viewport=PHONE)
    await login(page, ops_site, OPERATOR)
    await page.get_by_role("link", name="Mensagens mortas").click()
    for box in await page.get_by_role("checkbox", name="Selecionar a etapa reserve_stock").all():
        await box.check()
    violations = {"list": await serious_violations(page)}
    overflow = await _overflow(page)
    await page.get_by_role("button", name="Abandonar as etapas selecionadas").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Abandonar 2 etapas")
    violations["confirm"] = await serious_violations(page)
    await page.get_by_label("Motivo").fill("Fornecedor encerrou o contrato")
    await page.get_by_role("button", name="Abandonar as etapas selecionadas").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text(
        "Abandonar etapas: resultado por etapa"
    )
    await expect(page.get_by_role("status")).to_have_text("2 concluída(s), 0 recusada(s).")
    violations["result"] = await serious_violations(page)
    overflow += await _overflow(page)
    await shoot(page, "44-ops-dead-letters-given-up")
    await context.close()
    await ops_site.service.delivery.drain()
    for instance_id in (first, second):
        assert (await ops_site.service.engine.status(instance_id)).status == "failed"
    assert violations == {"list": [], "confirm": [], "result": []} and overflow == 0


@pytest.mark.parametrize(("width", "javascript"), SCREENS, ids=SCREEN_IDS)
async def test_an_admin_adds_and_removes_a_queue_member(
    ops_site: OpsSite, browser: Browser, width: int, javascript: bool
) -> None:
    platform = ops_site.platform
    directory = Directory(
        platform.database, platform.clock, platform.ids, platform.registrations.permissions
    )
    await directory.ensure_profile("ti", "ti", ("workflow.read", "workflow.admin"))
    await directory.create_user(
        "admin-ti", display_name="Admin TI", profile="ti", password=PASSWORD
    )
    await directory.create_user("nova", display_name="Nova Servidora", profile="ti")
    context, page = await new_page(
        browser, java_script_enabled=javascript, viewport=PHONE if width == 390 else DESKTOP
    )
    await login(page, ops_site, "admin-ti")
    await page.get_by_role("link", name="Filas", exact=True).click()
    await page.get_by_role("table", name="Filas de trabalho").get_by_role("link").first.click()
    heading = await page.get_by_role("heading", level=1).text_content()
    assert heading is not None and heading.startswith("Membros da fila")
    await expect(page.locator("html")).to_have_attribute("lang", "pt-BR")
    violations = {"members": await serious_violations(page)} if javascript else {}
    overflow = {"members": await _overflow(page)}
    await page.get_by_role("link", name="Adicionar membro").click()
    await page.get_by_label("Pessoa (nome ou login)").fill("nova")
    await page.get_by_label("Motivo").fill("Reforço na equipe")
    if javascript:
        violations["add"] = await serious_violations(page)
    overflow["add"] = await _overflow(page)
    await page.get_by_role("button", name="Adicionar o membro").click()
    await expect(page.get_by_role("status")).to_have_text("Membro adicionado.")
    await expect(page.get_by_role("table")).to_contain_text("Nova Servidora")
    if javascript:
        violations["members-added"] = await serious_violations(page)
    overflow["members-added"] = await _overflow(page)
    await page.get_by_role("link", name="Remover Nova Servidora").click()
    await page.get_by_label("Motivo").fill("Mudou de setor")
    if javascript:
        violations["remove"] = await serious_violations(page)
    overflow["remove"] = await _overflow(page)
    await shoot(page, f"45-ops-queue-member-remove-{width}-{'js' if javascript else 'nojs'}")
    await page.get_by_role("button", name="Remover o membro").click()
    await expect(page.get_by_role("status")).to_have_text("Membro removido.")
    await expect(page.get_by_role("table")).not_to_contain_text("Nova Servidora")
    await context.close()
    assert all(found == [] for found in violations.values())
    assert overflow == {name: 0 for name in overflow}
