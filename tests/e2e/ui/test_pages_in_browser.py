"""Acceptance in a real browser: review, approval and publication of a Diário act through the
admin pages, the citizen's timeline, accessibility (axe-core) and no-JavaScript operation."""

from __future__ import annotations

from playwright.async_api import Browser, Page, expect

from modules.diario.domain import ActStatus
from modules.diario.records import ActStore
from services.workflow.public.links import sign_link
from tests.e2e.ui.conftest import Site, login, new_page, serious_violations, shoot


async def _open_task_of(page: Page, task_name: str) -> None:
    row = page.get_by_role("row").filter(has_text=task_name)
    await row.get_by_role("button", name="Assumir").click()
    await expect(page.get_by_role("status")).to_have_text("Tarefa assumida.")
    await page.get_by_role("link", name=task_name).click()


async def test_an_act_is_reviewed_approved_published_and_followed_by_the_citizen(
    site: Site, browser: Browser
) -> None:
    act = await site.submit_act()
    context, page = await new_page(browser)
    violations: dict[str, list[object]] = {}

    await page.goto(f"{site.url}/cms/login")
    violations["login"] = await serious_violations(page)
    await shoot(page, "01-login")
    await login(page, site, "revisor")
    violations["inbox"] = await serious_violations(page)
    await shoot(page, "02-inbox")

    await _open_task_of(page, "Revisar")
    await page.get_by_label("Observações").fill("Texto conferido.")
    await page.get_by_role("button", name="Concluir tarefa").click()
    summary = page.get_by_role("alert")
    await expect(summary).to_contain_text("Escolha uma decisão.")
    await expect(page.get_by_label("Observações")).to_have_value("Texto conferido.")
    await expect(page.locator("fieldset.outcomes")).to_have_attribute(
        "aria-describedby", "outcome-error"
    )
    await expect(page.locator("#outcome-approve")).to_be_focused()
    violations["task-with-errors"] = await serious_violations(page)
    await shoot(page, "03-task-validation-error")

    await page.get_by_label("Enviar para aprovação").check()
    await page.get_by_role("button", name="Concluir tarefa").click()
    await expect(page.get_by_role("status")).to_have_text("Tarefa concluída.")
    await site.service.delivery.drain()
    await page.get_by_role("button", name="Sair (Revisor)").click()

    await login(page, site, "aprovadora")
    await _open_task_of(page, "Aprovar")
    violations["task"] = await serious_violations(page)
    await shoot(page, "04-task")
    await page.get_by_label("Aprovar a publicação").check()
    await page.get_by_role("button", name="Concluir tarefa").click()
    await expect(page.get_by_role("status")).to_have_text("Tarefa concluída.")
    await site.service.delivery.drain()
    assert (await ActStore(site.platform).get(act.id)).status is ActStatus.PUBLISHED

    await page.goto(f"{site.url}/cms/workflow/instances/{act.instance_id}")
    await expect(page.get_by_role("heading", level=1)).to_contain_text("Processo DOM-")
    await expect(page.locator(".facts")).to_contain_text("Concluído")
    violations["instance"] = await serious_violations(page)
    await shoot(page, "05-instance")
    await page.goto(f"{site.url}/cms/workflow/operations/dead-letters")
    violations["dead-letters"] = await serious_violations(page)
    await shoot(page, "06-dead-letters")
    await context.close()

    view = await site.service.engine.status(act.instance_id or "")
    token = sign_link(site.platform.settings.secret_key, site.platform.clock, view.protocol)
    citizen, public = await new_page(browser)
    await public.goto(f"{site.url}/portal/timeline/{token}")
    await expect(public.get_by_role("heading", level=1)).to_have_text(f"Protocolo {view.protocol}")
    await expect(public.locator("ol.timeline")).to_contain_text("Publicado")
    violations["portal"] = await serious_violations(public)
    await shoot(public, "07-portal-timeline")
    await public.goto(f"{site.url}/public/timeline/{token}")
    violations["public-minimal"] = await serious_violations(public)
    await citizen.close()

    assert violations == {name: [] for name in violations}


async def test_inbox_and_task_completion_work_without_javascript(
    site: Site, browser: Browser
) -> None:
    act = await site.submit_act()
    context, page = await new_page(browser, java_script_enabled=False)
    await login(page, site, "revisor")
    await _open_task_of(page, "Revisar")
    await page.get_by_label("Rejeitar").check()
    await page.get_by_role("button", name="Concluir tarefa").click()
    await expect(page.get_by_role("status")).to_have_text("Tarefa concluída.")
    await site.service.delivery.drain()
    await context.close()
    assert (await ActStore(site.platform).get(act.id)).status is ActStatus.REJECTED


async def test_pages_forbid_inline_script_and_style(site: Site, browser: Browser) -> None:
    context, page = await new_page(browser)
    response = await page.goto(f"{site.url}/cms/login")
    await context.close()
    assert response is not None
    csp = response.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "style-src 'self';" in csp and "script-src" not in csp


async def test_a_form_posted_without_the_csrf_token_is_refused(
    site: Site, browser: Browser
) -> None:
    context, page = await new_page(browser)
    await page.goto(f"{site.url}/cms/login")
    response = await page.request.post(
        f"{site.url}/cms/login", form={"username": "revisor", "password": "x"}
    )
    await context.close()
    assert response.status == 403


async def test_an_anonymous_visitor_is_sent_to_the_login_page(site: Site, browser: Browser) -> None:
    context, page = await new_page(browser)
    await page.goto(f"{site.url}/cms/workflow/inbox")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Entrar")
    assert page.url.endswith("/cms/login?next=/cms/workflow/inbox")
    await context.close()
