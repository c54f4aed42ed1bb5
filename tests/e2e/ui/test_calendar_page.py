"""The calendar admin page in Chromium, in pt-BR, at 1280 px and at 390 px, with axe: the list,
a city calendar's year by layer, and a dated ponto facultativo added through the form with the
city's decision and a reason, the notice saying how many open deadlines were recomputed."""

from __future__ import annotations

from playwright.async_api import Browser, Page, ViewportSize, expect

from core.identity import Directory
from services.workflow.calendar import (
    AnnualHoliday,
    CalendarSpec,
    StateLayer,
    seal_spec,
)
from services.workflow.runtime.services.deadline_service import DeadlineService
from tests.e2e.ui.conftest import PASSWORD, Site, login, new_page, serious_violations, shoot
from tests.integration.deadlines.esic import OFFICER

DESKTOP = {"width": 1280, "height": 900}
PHONE: ViewportSize = {"width": 390, "height": 844}


async def _overflow(page: Page) -> int:
    width: int = await page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    return width


async def _calendars(deadlines: DeadlineService) -> None:
    state = seal_spec(CalendarSpec(key="br-es", version=1, layer="state", subdivision="ES"))
    city = CalendarSpec(
        key="br-es-vitoria",
        version=1,
        subdivision="ES",
        state=StateLayer(key="br-es", version=1),
        municipal_holidays=(AnnualHoliday(name="Aniversário de Vitória", month=9, day=8),),
    )
    await deadlines.publish_calendar(state, OFFICER)
    await deadlines.publish_calendar(seal_spec(city), OFFICER)


async def test_an_admin_adds_an_optional_day_with_its_decision_at_1280_and_390_px(
    site: Site, browser: Browser
) -> None:
    platform = site.platform
    directory = Directory(
        platform.database, platform.clock, platform.ids, platform.registrations.permissions
    )
    await directory.ensure_profile("ti", "ti", ("workflow.read", "workflow.admin"))
    await directory.create_user(
        "admin-ti", display_name="Admin TI", profile="ti", password=PASSWORD
    )
    await _calendars(site.service.deadlines)
    context, page = await new_page(browser, viewport=DESKTOP)
    await login(page, site, "admin-ti")
    await page.get_by_role("link", name="Calendários", exact=True).click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Calendários")
    violations = {"list": await serious_violations(page)}
    await page.get_by_role("link", name="br-es-vitoria").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Calendário br-es-vitoria")
    year = page.get_by_role("table", name="Dias sem expediente em 2026, por camada")
    await expect(year).to_contain_text("Aniversário de Vitória")
    violations["calendar"] = await serious_violations(page)

    await page.get_by_role("link", name="Acrescentar um dia a este calendário").click()
    await page.get_by_label("Ponto facultativo", exact=True).check()
    await page.get_by_label("Data (dd/mm/aaaa)").fill("17/02/2026")
    await page.get_by_label("Nome").fill("Carnaval")
    await page.get_by_label("Sim, as repartições fecham").check()
    await page.get_by_label("Decreto do ponto facultativo").fill("Decreto 100/2026")
    await page.get_by_label("Motivo").fill("Pontos facultativos de 2026")
    violations["add"] = await serious_violations(page)
    await shoot(page, "60-calendar-add-1280")
    await page.get_by_role("button", name="Acrescentar o dia").click()

    await expect(page.get_by_role("status")).to_contain_text("Calendário alterado: versão 2.")
    await expect(page.get_by_role("status")).to_contain_text(
        "Nenhum prazo em aberto contava com a versão anterior."
    )
    await expect(year).to_contain_text("Carnaval (ponto facultativo, Decreto 100/2026)")
    await page.set_viewport_size(PHONE)
    violations["phone"] = await serious_violations(page)
    overflow = {"calendar": await _overflow(page)}
    await shoot(page, "61-calendar-year-390")
    await page.get_by_role("link", name="Acrescentar um dia a este calendário").click()
    overflow["add"] = await _overflow(page)
    await context.close()
    assert all(found == [] for found in violations.values()), violations
    assert overflow == {"calendar": 0, "add": 0}
