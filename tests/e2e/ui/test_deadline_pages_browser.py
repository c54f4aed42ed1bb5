"""A case with a legal deadline in Chromium, in pt-BR, at 1280 px and 390 px, with JavaScript on
and off: the task page and the instance page explain the deadline; an operator suspends and
resumes it on the deadlines page, then extends it through its confirmation page, and the
instance page's audit table shows the reasons. axe (which needs JavaScript) finds nothing
serious on any page; no page scrolls sideways.

The shared ``site`` runs the real modules, whose requests carry no counted deadline at start, so
this file serves a platform that also carries the e-SIC-like test plugin (a 20-day legal rule).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.plugins import PluginHost
from core.settings import Settings
from modules.diario.workflows import REVIEWER_ID
from services.workflow.bootstrap import service_of
from tests.e2e.api.esic_like import PERSONAL, EsicLikePlugin
from tests.e2e.ui.conftest import (
    SCREEN_IDS,
    SCREENS,
    Site,
    _staff,
    login,
    new_page,
    serious_violations,
    served,
    shoot,
)
from tests.e2e.ui.test_operations_pages import OPERATOR

VIEWPORTS = {1280: {"width": 1280, "height": 900}, 390: {"width": 390, "height": 844}}
# The fixed clock: Monday 02/03/2026 09:00 in Brasília; 20 calendar days end on Sunday 22/03.
DUE = "Vence em 23/03/2026, às 23:59 (horário local)."
BASIS = "Decreto 7.724/2012, art. 16"


class Checks:
    """The page's language, axe's findings (with JavaScript) and the sideways overflow."""

    def __init__(self, page: Page, javascript: bool) -> None:
        self.page, self.javascript = page, javascript
        self.violations: dict[str, Any] = {}
        self.overflow: dict[str, int] = {}

    async def __call__(self, name: str) -> None:
        await expect(self.page.locator("html")).to_have_attribute("lang", "pt-BR")
        if self.javascript:
            self.violations[name] = await serious_violations(self.page)
        self.overflow[name] = await self.page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )

    def assert_clean(self) -> None:
        assert self.violations == {name: [] for name in self.violations}
        assert self.overflow == {name: 0 for name in self.overflow}


@pytest.fixture
async def esic_site(database_url: str, clock: FixedClock) -> AsyncIterator[Site]:
    host = PluginHost()
    host.discover()
    host.register(EsicLikePlugin(), "esic_like_test")
    platform = await Platform.boot(
        Settings(database_url=database_url),
        clock=clock,
        ids=SequentialIdGen(clock),
        host=host,
        upgrade=False,
    )
    service = service_of(platform)
    await _staff(platform)
    await service.catalog.add_member("esic_like.juridico", REVIEWER_ID, actor=Actor.system("t"))
    async with served(platform) as url:
        yield Site(url=url, platform=platform, service=service)
    await platform.close()


async def _request(site: Site) -> tuple[str, str, str]:
    """A citizen's request with its running deadline: (instance id, protocol, task id)."""
    view = await site.service.engine.start(
        StartRequest(definition_key="esic_like.request", context=PERSONAL)
    )
    await site.service.delivery.drain()
    (task,) = await site.service.engine.tasks(view.id)
    return view.id, (await site.service.engine.status(view.id)).protocol, task.id


@pytest.mark.parametrize(("width", "javascript"), SCREENS, ids=SCREEN_IDS)
async def test_an_operator_reads_suspends_resumes_and_extends_a_legal_deadline(
    esic_site: Site, browser: Browser, clock: FixedClock, width: int, javascript: bool
) -> None:
    instance_id, protocol, task_id = await _request(esic_site)
    clock.advance(timedelta(days=1))  # the count starts the day after filing; so may a pause
    context, page = await new_page(
        browser, viewport=VIEWPORTS[width], java_script_enabled=javascript
    )
    check = Checks(page, javascript)
    await login(page, esic_site, OPERATOR)
    case = f"{esic_site.url}/cms/workflow/instances/{instance_id}"

    await page.goto(f"{case}/tasks/{task_id}")
    await expect(page.locator("section.deadline-explain")).to_contain_text(DUE)
    await expect(page.locator("section.deadline-explain")).to_contain_text(
        "20 dias corridos, contados a partir do dia seguinte a 02/03/2026."
    )
    await check("task")

    await page.goto(case)
    await expect(page.get_by_role("heading", level=1)).to_contain_text(protocol)
    await expect(page.locator("section.deadline-explain")).to_contain_text(DUE)
    await check("instance")

    await page.get_by_role("link", name="Prazos legais: suspender ou retomar").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text(
        f"Prazos legais do processo {protocol}"
    )
    await check("deadlines")
    await page.get_by_label("Motivo").fill("Aguardando complemento do pedido")
    await page.get_by_label("Base legal").fill(BASIS)
    await page.get_by_role("button", name="Suspender", exact=True).click()
    await expect(page.get_by_role("status")).to_have_text("Prazo suspenso.")
    deadlines = page.get_by_role("table", name="Prazos legais acompanhados")
    await expect(deadlines).to_contain_text("Suspenso")
    await expect(deadlines).to_contain_text(BASIS)
    await check("deadlines-suspended")
    await shoot(page, f"80-deadlines-suspended-{width}-{'js' if javascript else 'nojs'}")
    await page.get_by_role("button", name="Retomar", exact=True).click()
    await expect(page.get_by_role("status")).to_have_text("Prazo retomado.")

    await page.get_by_role("link", name="Voltar ao processo").click()
    await page.get_by_role("link", name="Prorrogar o prazo prazo").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Prorrogar o prazo prazo")
    await check("extend")
    await page.get_by_label("Justificativa").fill("Volume de documentos a reunir")
    await page.get_by_role("button", name="Prorrogar o prazo").click()
    await expect(page.get_by_role("status")).to_have_text("Prazo prorrogado.")
    audit = page.get_by_role("table", name="Registros de auditoria")
    await expect(audit).to_contain_text("Volume de documentos a reunir")
    await expect(audit).to_contain_text("Aguardando complemento do pedido")
    await check("instance-extended")
    await context.close()
    (deadline,) = await esic_site.service.deadlines.show(instance_id, "prazo")
    assert (deadline.status, deadline.extensions_used) == ("running", 1)
    check.assert_clean()
