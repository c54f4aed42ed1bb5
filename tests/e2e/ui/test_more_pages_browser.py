"""The pages the other browser tests reach at one size only, read at 1280 px and 390 px with
JavaScript on and off, in pt-BR: the landing page, the queues list, the calendars (list, one
calendar, the add form), the stuck processes, the give-a-step-another-run confirmation, the
staff error page, and the Diário's public editions and verification pages. axe (which needs
JavaScript) finds nothing serious; no page scrolls sideways."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from core.clock import FixedClock
from core.identity import Directory
from modules.diario.plugin import RUNTIME
from tests.e2e.ui.conftest import PASSWORD, SCREEN_IDS, SCREENS, login, new_page
from tests.e2e.ui.test_calendar_page import _calendars
from tests.e2e.ui.test_deadline_pages_browser import VIEWPORTS, Checks
from tests.e2e.ui.test_operations_pages import OpsSite, ops_site
from tests.fakes.purchase import retryable
from tests.modules.gazette_kit import gazette_config

__all__ = ["ops_site"]  # the fixture, shared with the operations pages' tests

UNKNOWN = "019cae6b-6600-7000-8000-0000000000ff"
CALENDAR = "/cms/workflow/calendars/br-es-vitoria"
PAGES = {
    "landing": ("/", "Tramita"),
    "queues": ("/cms/workflow/queues", "Filas"),
    "calendars": ("/cms/workflow/calendars", "Calendários"),
    "calendar": (CALENDAR, "Calendário br-es-vitoria"),
    "calendar-add": (f"{CALENDAR}/add", "Acrescentar um dia a br-es-vitoria"),
    "stuck": ("/cms/workflow/operations/stuck", "Processos parados"),
    "diario-editions": ("/public/diario", "Edições do Diário Oficial"),
    "diario-verify": ("/public/diario/verificar", "Verificar uma edição"),
}


@pytest.mark.parametrize(("width", "javascript"), SCREENS, ids=SCREEN_IDS)
async def test_the_remaining_pages_read_in_portuguese_at_both_sizes(
    ops_site: OpsSite,
    browser: Browser,
    clock: FixedClock,
    tmp_path: Path,
    width: int,
    javascript: bool,
) -> None:
    platform = ops_site.platform
    RUNTIME.bind(platform, gazette_config(tmp_path))
    directory = Directory(
        platform.database, platform.clock, platform.ids, platform.registrations.permissions
    )
    grants = ("workflow.read", "workflow.tasks", "workflow.operate", "workflow.admin")
    await directory.ensure_profile("ti", "ti", grants)
    await directory.create_user(
        "admin-ti", display_name="Admin TI", profile="ti", password=PASSWORD
    )
    await _calendars(ops_site.service.deadlines)
    ops_site.purchase.stock.fail_next.extend([retryable() for _ in range(5)])
    await ops_site.start_purchase(500)
    for _ in range(5):
        clock.advance(timedelta(seconds=31))
        await ops_site.service.delivery.drain()
    context, page = await new_page(
        browser, viewport=VIEWPORTS[width], java_script_enabled=javascript
    )
    check = Checks(page, javascript)
    await login(page, ops_site, "admin-ti")
    for name, (path, heading) in PAGES.items():
        response = await page.goto(f"{ops_site.url}{path}")
        assert response is not None and response.status == 200, name
        await expect(page.get_by_role("heading", level=1)).to_contain_text(heading)
        await check(name)

    await page.goto(f"{ops_site.url}/cms/workflow/operations/dead-letters")
    await page.get_by_role("link", name="Executar de novo a etapa reserve_stock").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text(
        "Executar de novo a etapa reserve_stock"
    )
    await check("reprocess")

    response = await page.goto(f"{ops_site.url}/cms/workflow/instances/{UNKNOWN}")
    assert response is not None and response.status == 404
    await expect(page.get_by_role("heading", level=1)).to_have_text("Não foi possível concluir")
    await check("error")
    await context.close()
    check.assert_clean()
