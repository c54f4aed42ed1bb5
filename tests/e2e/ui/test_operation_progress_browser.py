"""A long operation's progress page in Chromium, in pt-BR: the finished operation (1280 px with
JavaScript and axe, 390 px without JavaScript) shows its status, an accessible progress bar
with the counts in words and each refused item with its reason; a queued one refreshes itself
and is cancelled from its page after a confirmation with a reason (1280 px and 390 px,
JavaScript on and off, axe where it runs)."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, Page, expect

from contracts.kernel import Actor
from modules.diario.workflows import REVIEWER_ID
from services.workflow.runtime.services.operations import OperationService
from tests.e2e.ui.conftest import SCREEN_IDS, SCREENS, login, new_page, serious_violations, shoot
from tests.e2e.ui.test_operations_pages import OPERATOR, OpsSite, ops_site

__all__ = ["ops_site"]

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
UNKNOWN_TASKS = ["019cae6b-6600-7000-8000-0000000000f1", "019cae6b-6600-7000-8000-0000000000f2"]


def _ops(site: OpsSite) -> OperationService:
    assert site.service.operations is not None
    return site.service.operations


async def _overflow(page: Page) -> int:
    width: int = await page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    return width


@pytest.mark.parametrize("javascript", [True, False], ids=["js-1280", "no-js-390"])
async def test_the_progress_page_shows_the_counts_and_each_refusal(
    ops_site: OpsSite, browser: Browser, javascript: bool
) -> None:
    started = await _ops(ops_site).start(
        "bulk_claim", UNKNOWN_TASKS, actor=Actor(id=REVIEWER_ID), reason=None
    )
    await ops_site.service.delivery.drain()
    context, page = await new_page(
        browser, java_script_enabled=javascript, viewport=DESKTOP if javascript else PHONE
    )
    await login(page, ops_site, OPERATOR)
    await page.goto(f"{ops_site.url}/cms/workflow/operations")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Operações em segundo plano")
    await page.get_by_role("link", name="Assumir tarefas em lote").click()

    await expect(page.get_by_role("heading", level=1)).to_have_text("Assumir tarefas em lote")
    bar = page.get_by_role("progressbar", name="Andamento")
    await expect(bar).to_have_attribute("value", "2")
    await expect(page.locator("#progress-text")).to_have_text(
        "2 de 2 itens tratados (100%): 0 feitos, 2 recusados, 0 ainda por fazer."
    )
    table = page.get_by_role("table", name="Cada item recusado e o motivo")
    await expect(table.get_by_role("row")).to_have_count(3)
    await expect(table).to_contain_text("Tarefa desconhecida.")
    violations = await serious_violations(page) if javascript else []
    overflow = await _overflow(page)
    await shoot(page, f"60-operation-progress-{'js' if javascript else 'nojs'}")
    await context.close()
    assert started.total == 2
    assert violations == [] and overflow == 0


@pytest.mark.parametrize(("width", "javascript"), SCREENS, ids=SCREEN_IDS)
async def test_a_queued_operation_refreshes_itself_and_is_cancelled_with_a_reason(
    ops_site: OpsSite, browser: Browser, width: int, javascript: bool
) -> None:
    started = await _ops(ops_site).start("bulk_claim", UNKNOWN_TASKS, actor=Actor(id=REVIEWER_ID))
    context, page = await new_page(
        browser, java_script_enabled=javascript, viewport=DESKTOP if width == 1280 else PHONE
    )
    await login(page, ops_site, OPERATOR)
    await page.goto(f"{ops_site.url}/cms/workflow/operations/{started.id}")
    await expect(page.locator('meta[http-equiv="refresh"]')).to_have_attribute("content", "3")
    await expect(page.locator("#progress-text")).to_contain_text("0 de 2 itens tratados")
    await page.get_by_role("link", name="Cancelar a operação").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Cancelar a operação")
    await page.get_by_label("Motivo").fill("Seleção errada")
    overflow = await _overflow(page)
    violations = await serious_violations(page) if javascript else []
    await page.get_by_role("button", name="Cancelar a operação").click()
    await expect(page.get_by_role("status").first).to_have_text(
        "A operação foi cancelada: ela para antes do próximo item."
    )
    await expect(page.locator('meta[http-equiv="refresh"]')).to_have_count(0)
    await context.close()
    assert (await _ops(ops_site).get(started.id)).status == "cancelled"
    assert overflow == 0 and violations == []
