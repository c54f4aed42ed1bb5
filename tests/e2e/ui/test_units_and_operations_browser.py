"""The units page and a background operation's progress page in Chromium, in pt-BR, at 1280 px
and at 390 px, with JavaScript on and off: reached from the header's navigation ("Unidades",
"Operações"), an administrator creates a unit, places a queue in it and adds and removes a
supervisor through the confirmation forms, and an operator follows an operation to its counts
and refusals. axe (which needs JavaScript) finds nothing serious on any page; no page scrolls
sideways."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from contracts.kernel import Actor
from core.identity import Directory
from modules.diario.workflows import REVIEWER_ID
from tests.e2e.ui.conftest import (
    PASSWORD,
    SCREEN_IDS,
    SCREENS,
    Site,
    login,
    new_page,
    serious_violations,
    shoot,
)
from tests.e2e.ui.test_operations_pages import OPERATOR, OpsSite, ops_site

__all__ = ["ops_site"]

VIEWPORTS = {1280: {"width": 1280, "height": 900}, 390: {"width": 390, "height": 844}}
UNKNOWN_TASKS = ["019cae6b-6600-7000-8000-0000000000f1", "019cae6b-6600-7000-8000-0000000000f2"]


async def _overflow(page: Page) -> int:
    width: int = await page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    return width


async def _admin(site: Site) -> None:
    platform = site.platform
    directory = Directory(
        platform.database, platform.clock, platform.ids, platform.registrations.permissions
    )
    await directory.ensure_profile(
        "ti", "ti", ("workflow.tasks", "workflow.read", "workflow.admin")
    )
    await directory.create_user(
        "admin-ti", display_name="Admin TI", profile="ti", password=PASSWORD
    )


class Checks:
    """axe's findings (with JavaScript) and the sideways overflow, per page."""

    def __init__(self, page: Page, javascript: bool) -> None:
        self.page, self.javascript = page, javascript
        self.violations: dict[str, Any] = {}
        self.overflow: dict[str, int] = {}

    async def __call__(self, name: str) -> None:
        await expect(self.page.locator("html")).to_have_attribute("lang", "pt-BR")
        if self.javascript:
            self.violations[name] = await serious_violations(self.page)
        self.overflow[name] = await _overflow(self.page)

    def assert_clean(self) -> None:
        assert all(found == [] for found in self.violations.values()), self.violations
        assert set(self.overflow.values()) == {0}, self.overflow


@pytest.mark.parametrize(("width", "javascript"), SCREENS, ids=SCREEN_IDS)
async def test_an_administrator_creates_a_unit_and_places_a_queue(
    site: Site, browser: Browser, width: int, javascript: bool
) -> None:
    await _admin(site)
    context, page = await new_page(
        browser, java_script_enabled=javascript, viewport=VIEWPORTS[width]
    )
    checks = Checks(page, javascript)
    await login(page, site, "admin-ti")
    await (
        page.get_by_role("navigation", name="Principal")
        .get_by_role("link", name="Unidades")
        .click()
    )
    await expect(page.get_by_role("heading", level=1)).to_have_text("Unidades")
    await expect(page.get_by_text("Nenhuma unidade ainda.")).to_be_visible()
    await checks("empty")

    await page.get_by_role("link", name="Criar uma unidade").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Criar uma unidade")
    await page.get_by_label("Chave (ex.: saude)").fill("saude")
    await page.get_by_label("Nome", exact=True).fill("Secretaria de Saúde")
    await page.get_by_label("Motivo").fill("Estrutura de 2026")
    await checks("create")
    await page.get_by_role("button", name="Criar a unidade").click()

    await expect(page.get_by_role("status")).to_have_text("Unidade criada.")
    await expect(page.get_by_role("heading", name="Secretaria de Saúde")).to_be_visible()
    await page.get_by_role("link", name="Colocar uma fila em Secretaria de Saúde").click()
    await page.get_by_label("Fila", exact=True).select_option("diario.revisao")
    await page.get_by_label("Motivo").fill("A revisão responde à saúde")
    await checks("place")
    await page.get_by_role("button", name="Colocar a fila").click()

    await expect(page.get_by_role("status")).to_have_text("Fila colocada na unidade.")
    queues = page.get_by_role("table", name="Filas da unidade: 1")
    await expect(queues).to_contain_text("diario.revisao")
    await checks("placed")
    await shoot(page, f"62-units-{width}-{'js' if javascript else 'nojs'}")

    await page.get_by_role("link", name="Adicionar um supervisor a Secretaria de Saúde").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text(
        "Adicionar um supervisor a Secretaria de Saúde"
    )
    await page.get_by_label("Pessoa (nome ou login)").fill("revisor")
    await page.get_by_label("Motivo").fill("Chefia da revisão")
    await checks("add-supervisor")
    await page.get_by_role("button", name="Adicionar o supervisor").click()
    await expect(page.get_by_role("status")).to_have_text("Supervisor adicionado.")
    await checks("supervised")
    await page.get_by_role("link", name="Remover Revisor").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text(
        "Remover Revisor da supervisão de Secretaria de Saúde"
    )
    await page.get_by_label("Motivo").fill("Mudou de setor")
    await checks("remove-supervisor")
    await page.get_by_role("button", name="Remover o supervisor").click()
    await expect(page.get_by_role("status")).to_have_text("Supervisor removido.")
    await context.close()
    checks.assert_clean()
    (unit,) = await site.service.units.units()
    assert (unit.key, unit.queues, unit.supervisors) == ("saude", ("diario.revisao",), ())


@pytest.mark.parametrize(("width", "javascript"), SCREENS, ids=SCREEN_IDS)
async def test_an_operator_follows_an_operation_from_the_navigation(
    ops_site: OpsSite, browser: Browser, width: int, javascript: bool
) -> None:
    operations = ops_site.service.operations
    assert operations is not None
    await operations.start("bulk_claim", UNKNOWN_TASKS, actor=Actor(id=REVIEWER_ID))
    await ops_site.service.delivery.drain()
    context, page = await new_page(
        browser, java_script_enabled=javascript, viewport=VIEWPORTS[width]
    )
    checks = Checks(page, javascript)
    await login(page, ops_site, OPERATOR)
    await (
        page.get_by_role("navigation", name="Principal")
        .get_by_role("link", name="Operações", exact=True)
        .click()
    )
    await expect(page.get_by_role("heading", level=1)).to_have_text("Operações em segundo plano")
    await checks("list")
    await page.get_by_role("link", name="Assumir tarefas em lote").click()

    await expect(page.get_by_role("heading", level=1)).to_have_text("Assumir tarefas em lote")
    await expect(page.get_by_text("Concluída").first).to_be_visible()
    bar = page.get_by_role("progressbar", name="Andamento")
    await expect(bar).to_have_attribute("value", "2")
    await expect(page.locator("#progress-text")).to_have_text(
        "2 de 2 itens tratados (100%): 0 feitos, 2 recusados, 0 ainda por fazer."
    )
    refused = page.get_by_role("table", name="Cada item recusado e o motivo")
    await expect(refused.get_by_role("row")).to_have_count(3)
    await expect(refused).to_contain_text("Tarefa desconhecida.")
    await expect(page.locator('meta[http-equiv="refresh"]')).to_have_count(0)
    await checks("progress")
    await shoot(page, f"63-operation-{width}-{'js' if javascript else 'nojs'}")
    await context.close()
    checks.assert_clean()
