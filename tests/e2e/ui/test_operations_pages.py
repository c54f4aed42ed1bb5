"""Operations in a real browser: an instance's step runs (a retried step shows both attempts and
the error) and the stuck instances page (threshold, refusal of a bad value, no JavaScript),
with axe-core on each page.

The shared ``site`` runs the Diário only, whose flow has no step that fails on demand, so these
tests serve a platform that also carries the purchase test plugin (its partners fail when told).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta

import pytest
from playwright.async_api import Browser, expect

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.plugins import PluginHost
from core.settings import Settings
from services.workflow.bootstrap import service_of
from tests.e2e.ui.conftest import (
    SCREEN_IDS,
    SCREENS,
    Site,
    _staff,
    add_reader,
    login,
    new_page,
    serious_violations,
    served,
    shoot,
)
from tests.fakes.purchase import PurchasePlugin, order, retryable

STUCK = "/cms/workflow/operations/stuck"
OPERATOR = "revisor"  # the shared staff hold workflow.operate and workflow.read


@dataclass
class OpsSite(Site):
    purchase: PurchasePlugin

    async def start_purchase(self, value: float) -> str:
        view = await self.service.engine.start(
            StartRequest(definition_key="purchase.approval", context=order(value))
        )
        await self.service.delivery.drain()
        return view.id

    async def protocol_of(self, instance_id: str) -> str:
        return (await self.service.engine.status(instance_id)).protocol


@pytest.fixture
async def ops_site(database_url: str, clock: FixedClock) -> AsyncIterator[OpsSite]:
    purchase = PurchasePlugin()
    host = PluginHost()
    host.discover()
    host.register(purchase, "purchase_test")
    platform = await Platform.boot(
        Settings(database_url=database_url),
        clock=clock,
        ids=SequentialIdGen(clock),
        host=host,
        upgrade=False,
    )
    await _staff(platform)
    async with served(platform) as url:
        yield OpsSite(url=url, platform=platform, service=service_of(platform), purchase=purchase)
    await platform.close()


async def _retried(site: OpsSite, clock: FixedClock) -> str:
    """A purchase whose stock reservation fails once, then succeeds on the retry."""
    site.purchase.stock.fail_next.append(retryable())
    instance_id = await site.start_purchase(500)
    clock.advance(timedelta(seconds=31))
    await site.service.delivery.drain()
    return instance_id


@pytest.mark.parametrize(("width", "javascript"), SCREENS, ids=SCREEN_IDS)
async def test_the_instance_page_lists_every_attempt_of_a_retried_step(
    ops_site: OpsSite, browser: Browser, clock: FixedClock, width: int, javascript: bool
) -> None:
    instance_id = await _retried(ops_site, clock)
    context, page = await new_page(
        browser, viewport={"width": width, "height": 900}, java_script_enabled=javascript
    )
    await login(page, ops_site, OPERATOR)
    await page.goto(f"{ops_site.url}/cms/workflow/instances/{instance_id}")

    table = page.get_by_role("table", name="Cada tentativa de cada etapa automática")
    await expect(table).to_be_visible()
    stock = table.get_by_role("row").filter(has=page.get_by_role("rowheader", name="reserve_stock"))
    await expect(stock).to_have_count(2)
    await expect(stock.nth(0)).to_contain_text("Falhou")
    await expect(stock.nth(0)).to_contain_text("RetryableFailure")
    await expect(stock.nth(1)).to_contain_text("Concluída")
    await expect(stock.nth(1).get_by_role("cell").nth(0)).to_have_text("2")
    rowheaders = table.get_by_role("rowheader")
    await expect(rowheaders).to_have_text(
        ["check", "reserve_stock", "reserve_stock", "charge_payment", "notify"]
    )
    violations = await serious_violations(page) if javascript else []
    overflow: int = await page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    await shoot(page, f"40-ops-instance-step-runs-{width}-{'js' if javascript else 'nojs'}")
    await context.close()
    assert violations == [] and overflow == 0


async def test_the_stuck_page_lists_an_instance_without_progress_past_the_threshold(
    ops_site: OpsSite, browser: Browser, clock: FixedClock
) -> None:
    stuck_id = await ops_site.start_purchase(20_000)  # waits for a manager
    done_id = await _retried(ops_site, clock)  # completed: never stuck
    clock.advance(timedelta(hours=25))
    fresh_id = await ops_site.start_purchase(30_000)
    stuck, done, fresh = [await ops_site.protocol_of(i) for i in (stuck_id, done_id, fresh_id)]
    context, page = await new_page(browser)
    await login(page, ops_site, OPERATOR)
    await page.get_by_role("link", name="Processos parados").click()

    await expect(page.get_by_role("heading", level=1)).to_have_text("Processos parados")
    await expect(page.get_by_role("link", name="Processos parados")).to_have_attribute(
        "aria-current", "page"
    )
    await expect(page.get_by_label("Sem movimentação há mais de")).to_have_value("24")
    table = page.get_by_role("table", name="Processos sem movimentação há mais de 24 horas")
    row = table.get_by_role("row").filter(has=page.get_by_role("link", name=stuck))
    await expect(row).to_contain_text("purchase.approval v1")
    await expect(row).to_contain_text("manager_approval")
    await expect(row).to_contain_text("1 d 1 h")
    await expect(table).not_to_contain_text(done)
    await expect(table).not_to_contain_text(fresh)
    violations = {"stuck": await serious_violations(page)}
    await shoot(page, "41-ops-stuck-instances")

    await page.get_by_role("link", name=stuck).click()
    await expect(page.get_by_role("heading", level=1)).to_have_text(f"Processo {stuck}")

    await page.goto(f"{ops_site.url}{STUCK}?hours=abc")
    summary = page.get_by_role("alert")
    await expect(summary).to_contain_text("“abc” não é um dos limites possíveis")
    select = page.get_by_label("Sem movimentação há mais de")
    await expect(select).to_be_focused()
    await expect(select).to_have_attribute("aria-invalid", "true")
    await expect(select).to_have_attribute("aria-describedby", "f-hours-error")
    await expect(page.get_by_role("table")).to_have_count(0)
    violations["stuck-error"] = await serious_violations(page)
    await shoot(page, "42-ops-stuck-invalid-threshold")
    await context.close()
    assert violations == {"stuck": [], "stuck-error": []}


async def test_the_stuck_page_refuses_a_bad_threshold_with_400(
    ops_site: OpsSite, browser: Browser
) -> None:
    context, page = await new_page(browser)
    await login(page, ops_site, OPERATOR)
    response = await page.goto(f"{ops_site.url}{STUCK}?hours=%3Cb%3E25")
    assert response is not None
    status, html = response.status, await response.text()
    await context.close()
    assert status == 400
    assert "&lt;b&gt;25" in html and "<b>25" not in html


async def test_the_threshold_form_works_without_javascript(
    ops_site: OpsSite, browser: Browser, clock: FixedClock
) -> None:
    stuck_id = await ops_site.start_purchase(20_000)
    clock.advance(timedelta(hours=30))
    stuck = await ops_site.protocol_of(stuck_id)
    context, page = await new_page(browser, java_script_enabled=False)
    await login(page, ops_site, OPERATOR)
    await page.goto(f"{ops_site.url}{STUCK}")
    await expect(page.get_by_role("link", name=stuck)).to_be_visible()

    await page.get_by_label("Sem movimentação há mais de").select_option("48")
    await page.get_by_role("button", name="Listar").click()
    await expect(page.get_by_role("cell")).to_have_text(
        "Nenhum processo parado há mais de 48 horas."
    )
    assert page.url.endswith(f"{STUCK}?hours=48")
    await context.close()


async def test_the_stuck_page_needs_the_operate_permission(
    ops_site: OpsSite, browser: Browser
) -> None:
    reader = await add_reader(ops_site.platform)
    context, page = await new_page(browser)
    await login(page, ops_site, reader)
    response = await page.goto(f"{ops_site.url}{STUCK}")
    await context.close()
    assert response is not None and response.status == 403


async def test_the_instance_page_says_why_a_condition_failed(
    ops_site: OpsSite, browser: Browser
) -> None:
    definition = {
        "format": 1,
        "key": "route.page",
        "name": "Route",
        "protocol_prefix": "RTP",
        "nodes": [
            {"id": "ask", "type": "start", "produces": ["n"], "next": "route"},
            {
                "id": "route",
                "type": "exclusive",
                "branches": [{"when": "100 / n > 1", "next": "done"}],
                "default": "done",
            },
            {"id": "done", "type": "end"},
        ],
    }
    engine = ops_site.service.engine
    await engine.publisher.publish(definition, actor=Actor(id="publisher"))
    view = await engine.start(StartRequest(definition_key="route.page", context={"n": 0}))
    assert view.status == "failed"
    context, page = await new_page(browser)
    await login(page, ops_site, OPERATOR)
    await page.goto(f"{ops_site.url}/cms/workflow/instances/{view.id}")
    await expect(page.locator("#failure-reason")).to_have_text(
        "A condição de um desvio falhou na etapa route: a regra fez uma divisão por zero."
    )
    violations = await serious_violations(page)
    await shoot(page, "41-ops-instance-failure-reason")
    await context.close()
    assert violations == []
