"""The case beside the task's form, in a browser: the module's description of the act, the
earlier submission read-only (field label, who, when), in pt-BR at 1280 px and 390 px with
JavaScript on and off, axe clean; a module whose view raises does not break the page."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, Page, expect
from structlog.testing import capture_logs

from contracts.kernel import Actor
from contracts.workflow.case import CaseDescription, CaseQuery
from modules.diario.demo import AUTHOR
from modules.diario.handlers import ActCase
from modules.diario.records import ActStore
from modules.diario.workflows import AUTHOR_ID, REVIEWER_ID
from tests.e2e.ui.conftest import (
    SCREEN_IDS,
    VIEWS,
    Site,
    login,
    new_page,
    serious_violations,
    shoot,
)

BODY = "Nomeia a servidora para o cargo.\n\nRevogam-se as disposições em contrário."


async def _overflow(page: Page) -> int:
    width: int = await page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    return width


async def _reviewed_act(site: Site) -> tuple[str, str]:
    """An act whose review was approved with a note: (instance id, approval task id)."""
    store = ActStore(site.platform)
    act = await store.draft(title="Portaria 12/2026", body=BODY, author_id=AUTHOR_ID)
    await store.submit(act.id, actor=AUTHOR)
    await site.service.delivery.drain()
    instance_id = (await store.get(act.id)).instance_id or ""
    (review,) = await site.service.engine.tasks(instance_id)
    reviewer = Actor(id=REVIEWER_ID)
    await site.service.tasks.claim(review.id, actor=reviewer)
    await site.service.tasks.complete(
        review.id, actor=reviewer, outcome="approve", data={"review_note": "Texto conferido."}
    )
    await site.service.delivery.drain()
    (approval,) = [t for t in await site.service.engine.tasks(instance_id) if t.status == "ready"]
    return instance_id, approval.id


@pytest.mark.parametrize(("viewport", "javascript"), VIEWS, ids=SCREEN_IDS)
async def test_the_approver_reads_the_act_and_the_review_beside_the_form(
    site: Site, browser: Browser, javascript: bool, viewport: dict[str, int]
) -> None:
    instance_id, task_id = await _reviewed_act(site)
    context, page = await new_page(browser, viewport=viewport, java_script_enabled=javascript)
    await login(page, site, "aprovadora")
    await page.goto(f"{site.url}/cms/workflow/instances/{instance_id}/tasks/{task_id}")

    case = page.get_by_role("region", name="O caso")
    await expect(case.get_by_role("heading", level=3, name="Portaria 12/2026")).to_be_visible()
    await expect(case.locator("p.case-text")).to_have_text(
        ["Nomeia a servidora para o cargo.", "Revogam-se as disposições em contrário."]
    )
    await expect(case.locator("dl.case-facts").first).to_contain_text("SituaçãoEm revisão")
    await expect(case).to_contain_text("Nenhum documento anexado.")
    earlier = case.get_by_role("article", name="Revisar")
    await expect(earlier).to_contain_text("Revisão da matéria, enviado por Revisor em")
    await expect(earlier.locator("dt")).to_have_text(["Observações"])
    await expect(earlier.locator("dd")).to_have_text(["Texto conferido."])
    await expect(page.get_by_role("form", name="Aprovação para publicação")).to_be_visible()
    await expect(page.get_by_role("button", name="Assumir esta tarefa")).to_be_visible()

    width = viewport["width"]
    assert await _overflow(page) == 0
    violations = await serious_violations(page) if javascript else []
    await shoot(page, f"70-task-case-{width}-{'js' if javascript else 'nojs'}")

    await page.get_by_role("button", name="Assumir esta tarefa").click()
    await page.goto(f"{site.url}/cms/workflow/instances/{instance_id}/tasks/{task_id}")
    await page.get_by_label("Aprovar").check()
    await page.get_by_role("button", name="Concluir tarefa").click()
    await expect(page.get_by_role("status")).to_have_text("Tarefa concluída.")

    await page.goto(f"{site.url}/cms/workflow/instances/{instance_id}")
    await expect(page.get_by_role("region", name="O caso")).to_contain_text("Portaria 12/2026")
    await expect(page.get_by_role("article", name="Aprovar")).to_contain_text("Observações")
    assert await _overflow(page) == 0
    await context.close()
    assert violations == []


async def test_a_view_that_raises_leaves_the_page_working_and_logs_ids_only(
    site: Site, browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    instance_id, task_id = await _reviewed_act(site)

    async def broken(self: ActCase, query: CaseQuery) -> CaseDescription | None:
        raise RuntimeError("Portaria 12/2026 could not be read")

    monkeypatch.setattr(ActCase, "describe", broken)
    context, page = await new_page(browser)
    await login(page, site, "aprovadora")
    with capture_logs() as logs:
        await page.goto(f"{site.url}/cms/workflow/instances/{instance_id}/tasks/{task_id}")
        case = page.get_by_role("region", name="O caso")
        await expect(case.get_by_role("status")).to_have_text(
            "Não foi possível carregar o resumo do caso."
        )
    await expect(case.get_by_role("article", name="Revisar")).to_contain_text("Texto conferido.")
    await expect(page.get_by_role("button", name="Concluir tarefa")).to_be_visible()
    assert await serious_violations(page) == []
    await context.close()
    (failure,) = [e for e in logs if e["event"] == "case_view_failed"]
    assert failure == {
        "event": "case_view_failed",
        "log_level": "error",
        "instance_id": instance_id,
        "subject_type": "diario.act",
        "plugin": "diario",
        "error": "RuntimeError",
    }
