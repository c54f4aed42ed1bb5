"""The clerk's inbox in a browser: find a case by its number, queues by name, people by name,
a capped total, previous and next pages, select all, bulk actions answered task by task, a
cheap conditional GET and new tasks announced without a reload (JavaScript on) — in pt-BR, at
1280 px and 390 px, with JavaScript on and off."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, Page, expect

from contracts.kernel import Actor
from modules.diario.workflows import APPROVER_ID, REVIEWER_ID
from tests.e2e.ui.conftest import (
    PASSWORD,
    PHONE_VIEW,
    SCREEN_IDS,
    VIEWS,
    Site,
    login,
    new_page,
    serious_violations,
    shoot,
)


async def _overflow(page: Page) -> int:
    width: int = await page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    return width


async def _review_tasks(site: Site, count: int) -> list[tuple[str, str]]:
    """(task id, protocol) of ``count`` new acts' review tasks, oldest first."""
    found = []
    for n in range(count):
        act = await site.submit_act(f"Portaria {n + 1}")
        (task,) = [
            t for t in await site.service.engine.tasks(act.instance_id or "") if t.status == "ready"
        ]
        found.append((task.id, task.protocol))
    return found


@pytest.mark.parametrize(("viewport", "javascript"), VIEWS, ids=SCREEN_IDS)
async def test_a_clerk_finds_a_case_and_claims_a_selection_reported_task_by_task(
    site: Site, browser: Browser, javascript: bool, viewport: dict[str, int]
) -> None:
    (free, _), (taken, taken_protocol), (other, other_protocol) = await _review_tasks(site, 3)
    await site.service.tasks.claim(taken, actor=Actor(id=APPROVER_ID))
    context, page = await new_page(browser, viewport=viewport, java_script_enabled=javascript)
    await login(page, site, "revisor")
    overflow = {"inbox": await _overflow(page)}
    await expect(page.locator("caption")).to_contain_text("Tarefas abertas: 3 (3 nesta página)")
    row = page.get_by_role("row").filter(has_text=taken_protocol)
    await expect(row).to_contain_text("Assumida por Aprovadora")
    queue = page.get_by_label("Fila", exact=True)
    await expect(queue.locator("option")).to_have_text(
        [
            "Todas as minhas filas",
            "Diário Oficial — aprovação e publicação",
            "Diário Oficial — revisão",
        ]
    )

    await page.get_by_label("Protocolo", exact=True).fill(other_protocol)
    await page.get_by_role("button", name="Filtrar").click()
    await expect(page.locator("caption")).to_contain_text("Tarefas abertas: 1 (1 nesta página)")
    await expect(page.locator("tbody tr")).to_have_count(1)
    await expect(page.locator("tbody")).to_contain_text(other_protocol)
    await page.get_by_label("Protocolo", exact=True).fill("")
    await page.get_by_role("button", name="Filtrar").click()

    await page.get_by_role("link", name="Selecionar todas desta página").click()
    boxes = page.locator('input[name="task_ids"]')
    await expect(boxes).to_have_count(3)
    for n in range(3):
        await expect(boxes.nth(n)).to_be_checked()
    if javascript:
        violations = await serious_violations(page)
        assert violations == []
    await page.get_by_role("button", name="Assumir selecionadas").click()

    await expect(page.get_by_role("heading", level=1)).to_have_text(
        "Ação em lote: resultado por tarefa"
    )
    await expect(page.get_by_role("status")).to_have_text("2 concluída(s), 1 recusada(s).")
    refused = page.get_by_role("row").filter(has_text=taken_protocol)
    await expect(refused).to_contain_text("Recusada: Assumida por outro servidor.")
    await expect(refused).to_contain_text("Assumida por Aprovadora")
    done = page.get_by_role("row").filter(has_text=other_protocol)
    await expect(done).to_contain_text("Feito")
    await expect(done).to_contain_text("Assumida por você")
    overflow["bulk-result"] = await _overflow(page)
    if javascript:
        assert await serious_violations(page) == []
        await shoot(page, f"60-bulk-result-{viewport['width']}")
    await page.reload()  # the same form again: its answers are replayed, nothing is redone
    await expect(page.get_by_role("status")).to_have_text("2 concluída(s), 1 recusada(s).")
    await context.close()
    assert overflow == {name: 0 for name in overflow}
    by_id = await site.service.inbox.views([free, taken, other])
    assert [by_id[t].assignee for t in (free, taken, other)] == [
        REVIEWER_ID,
        APPROVER_ID,
        REVIEWER_ID,
    ]


@pytest.mark.parametrize("javascript", [True, False])
async def test_forwarding_a_selection_to_a_person_offers_the_people_of_the_queue_by_name(
    site: Site, browser: Browser, javascript: bool
) -> None:
    ((_, protocol),) = await _review_tasks(site, 1)
    context, page = await new_page(browser, viewport=PHONE_VIEW, java_script_enabled=javascript)
    await login(page, site, "revisor")
    await page.get_by_label(f"Selecionar Revisar do protocolo {protocol}").check()
    person = page.get_by_label("Encaminhar a uma pessoa")
    await expect(person.locator("option")).to_have_text(
        ["Escolha uma pessoa", "Aprovadora", "Revisor"]
    )
    await person.select_option(label="Aprovadora")
    await page.get_by_role("button", name="Encaminhar selecionadas à pessoa").click()
    row = page.get_by_role("row").filter(has_text=protocol)
    await expect(row).to_contain_text("Feito")
    await expect(row).to_contain_text("Assumida por Aprovadora")
    assert await _overflow(page) == 0
    await page.get_by_role("link", name="Voltar à caixa de entrada").click()
    await page.get_by_label(f"Selecionar Revisar do protocolo {protocol}").check()
    await page.get_by_label("Encaminhar para a fila").select_option(
        label="Diário Oficial — aprovação e publicação"
    )
    await page.get_by_role("button", name="Encaminhar selecionadas", exact=True).click()
    await expect(page.get_by_role("row").filter(has_text=protocol)).to_contain_text(
        "Recusada: Assumida por outro servidor."
    )
    await context.close()


async def test_previous_and_next_pages_walk_the_inbox_both_ways(
    site: Site, browser: Browser
) -> None:
    tasks = await _review_tasks(site, 3)
    context, page = await new_page(browser, java_script_enabled=False)
    await login(page, site, "revisor")
    await page.goto(f"{site.url}/cms/workflow/inbox?sort=created_at&limit=1")
    seen = [await page.locator("tbody td").nth(1).inner_text()]
    for _ in range(2):
        await page.get_by_role("link", name="Próxima página").click()
        seen.append(await page.locator("tbody td").nth(1).inner_text())
    await expect(page.get_by_role("link", name="Próxima página")).to_have_count(0)
    await page.get_by_role("link", name="Página anterior").click()
    back = [await page.locator("tbody td").nth(1).inner_text()]
    await page.get_by_role("link", name="Página anterior").click()
    back.append(await page.locator("tbody td").nth(1).inner_text())
    await expect(page.get_by_role("link", name="Página anterior")).to_have_count(0)
    await context.close()
    assert seen == [p for _, p in tasks]
    assert back == [tasks[1][1], tasks[0][1]]


async def test_the_inbox_answers_a_conditional_request_with_304_until_it_changes(
    site: Site, browser: Browser
) -> None:
    await _review_tasks(site, 1)
    context, page = await new_page(browser)
    await login(page, site, "revisor")
    url = f"{site.url}/cms/workflow/inbox"
    first = await page.request.get(url)
    etag = first.headers["etag"]
    again = await page.request.get(url, headers={"if-none-match": etag})
    assert again.status == 304 and await again.body() == b""
    await _review_tasks(site, 1)
    changed = await page.request.get(url, headers={"if-none-match": etag})
    assert changed.status == 200 and changed.headers["etag"] != etag
    await context.close()


async def test_new_tasks_are_announced_without_a_reload_when_javascript_runs(
    site: Site, browser: Browser
) -> None:
    await _review_tasks(site, 1)
    context, page = await new_page(browser)
    await login(page, site, "revisor")
    live = page.locator("#inbox-live")
    await expect(live).to_be_hidden()
    await page.wait_for_timeout(1500)  # the stream has read the inbox as it was
    ((_, protocol),) = await _review_tasks(site, 1)
    await expect(live).to_have_text("Há tarefas novas. Atualizar a lista", timeout=15000)
    await page.get_by_role("link", name="Atualizar a lista").click()
    await expect(page.locator("tbody")).to_contain_text(protocol)
    await context.close()


async def test_a_supervisor_lists_every_queue_at_once_and_a_clerk_cannot(
    site: Site, browser: Browser
) -> None:
    ((_, protocol),) = await _review_tasks(site, 1)
    directory = site.platform.directory
    await directory.ensure_profile(
        "supervisao", "supervisao", ("workflow.tasks", "workflow.admin", "diario.review")
    )
    await directory.create_user(
        "supervisora", display_name="Supervisora", profile="supervisao", password=PASSWORD
    )
    context, page = await new_page(browser, java_script_enabled=False)
    await login(page, site, "supervisora")
    await expect(page.locator("caption")).to_contain_text("Tarefas abertas: 0")
    await page.get_by_label("Mostrar").select_option(label="Todas as filas (supervisão)")
    await page.get_by_role("button", name="Filtrar").click()
    await expect(page.locator("tbody")).to_contain_text(protocol)
    await page.get_by_role("button", name="Sair (Supervisora)").click()
    await login(page, site, "autora")
    await expect(page.get_by_label("Mostrar").locator("option")).to_have_count(3)
    await page.goto(f"{site.url}/cms/workflow/inbox?scope=team")
    await expect(page.locator("caption")).to_contain_text("Tarefas abertas: 0")
    await context.close()


@pytest.mark.parametrize(("viewport", "javascript"), VIEWS, ids=SCREEN_IDS)
async def test_the_search_page_finds_a_case_by_number_queue_and_status(
    site: Site, browser: Browser, javascript: bool, viewport: dict[str, int]
) -> None:
    (_, first), (_, second) = await _review_tasks(site, 2)
    context, page = await new_page(browser, viewport=viewport, java_script_enabled=javascript)
    await login(page, site, "revisor")
    await page.get_by_role("link", name="Buscar processos").click()
    await page.get_by_label("Protocolo", exact=True).fill(second)
    await page.get_by_role("button", name="Buscar", exact=True).click()
    await expect(page.locator("tbody tr")).to_have_count(1)
    await expect(page.locator("tbody")).to_contain_text(second)
    await page.get_by_label("Protocolo", exact=True).fill("")
    await page.get_by_label("Fila", exact=True).select_option(label="Diário Oficial — revisão")
    await page.get_by_label("Situação").select_option(label="Aguardando")
    await page.get_by_role("button", name="Buscar", exact=True).click()
    await expect(page.locator("tbody tr")).to_have_count(2)
    assert await _overflow(page) == 0
    if javascript:
        assert await serious_violations(page) == []
    await page.goto(f"{site.url}/cms/workflow/search?from=31-12")
    await expect(page.get_by_role("alert")).to_contain_text("Use uma data como 31/12/2026.")
    await expect(page.get_by_label("Iniciado a partir de")).to_have_attribute(
        "aria-invalid", "true"
    )
    await context.close()
    assert first != second
