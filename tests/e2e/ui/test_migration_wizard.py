"""The migration wizard in a real browser: version 2 of a small flow renames the node the
instances wait on; the operator picks instances, sees the dry run block until the node is
mapped, runs with a reason and finds the instances on version 2 at the mapped node. axe-core
runs on every page; a second walk runs with JavaScript disabled; tampered hidden fields are
refused on the step they belong to."""

from __future__ import annotations

import re
from typing import Any

from playwright.async_api import Browser, Page, expect

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from services.workflow.runtime.services.migration import Migrator
from tests.e2e.ui.conftest import (
    Site,
    add_reader,
    login,
    new_page,
    serious_violations,
    shoot,
)

MIGRATIONS = "/cms/workflow/operations/migrations"
KEY = "teste.migracao"
OPERATOR = "revisor"  # the shared staff hold workflow.operate
PUBLISHER = Actor(id="modeladora")


def _definition(waiting: str, name: str) -> dict[str, Any]:
    """start -> one human task (``waiting``) -> end, on a queue the Diário registers."""
    return {
        "format": 1,
        "key": KEY,
        "name": "Migração de teste",
        "protocol_prefix": "MIG",
        "nodes": [
            {"id": "inicio", "type": "start", "next": waiting},
            {
                "id": waiting,
                "type": "user_task",
                "name": name,
                "queue": "diario.revisao",
                "next": "fim",
            },
            {"id": "fim", "type": "end"},
        ],
    }


async def _setup(site: Site, count: int) -> list[str]:
    """The composition root's migrator, v1 and v2 (``triagem`` renamed ``analise``) and
    ``count`` instances waiting at ``triagem`` on v1."""
    engine = site.service.engine
    await engine.publisher.publish(_definition("triagem", "Triagem"), actor=PUBLISHER)
    ids = []
    for _ in range(count):
        view = await engine.start(StartRequest(definition_key=KEY, version=1))
        ids.append(view.id)
    await engine.publisher.publish(_definition("analise", "Análise"), actor=PUBLISHER)
    await site.service.delivery.drain()
    return ids


async def _check(page: Page, name: str, violations: dict[str, list[Any]]) -> None:
    violations[name] = await serious_violations(page)
    await shoot(page, f"5{len(violations) - 1}-migration-{name}")


async def _to_instances(page: Page, site: Site) -> None:
    await page.goto(f"{site.url}{MIGRATIONS}")
    await page.get_by_label("Fluxo").select_option(KEY)
    # The GET form's navigation is awaited on the page that comes, not by the click: twice in
    # long suite runs (never alone, not even on loaded cores) Playwright's click stalled on
    # "waiting for scheduled navigations to finish" (microsoft/playwright#11219, #33806).
    await page.get_by_role("button", name="Ver versões").click(no_wait_after=True)
    await page.wait_for_url(re.compile(r"[?&]definition="))
    await expect(page.get_by_label("Versão de origem")).to_have_value("1")
    await expect(page.get_by_label("Versão de destino")).to_have_value("2")
    await page.get_by_role("button", name="Continuar: escolher processos").click()


async def test_an_operator_maps_a_renamed_node_dry_runs_and_migrates_chosen_instances(
    site: Site, browser: Browser
) -> None:
    first, second, left = await _setup(site, 3)
    engine = site.service.engine
    context, page = await new_page(browser)
    violations: dict[str, list[Any]] = {}
    await login(page, site, OPERATOR)

    await page.get_by_role("link", name="Migrações").click()
    await expect(page.get_by_role("heading", level=1)).to_contain_text("Passo 1 de 5")
    await page.get_by_label("Fluxo").select_option(KEY)
    await page.get_by_role("button", name="Ver versões").click()
    await _check(page, "start", violations)
    await page.get_by_role("button", name="Continuar: escolher processos").click()

    rows = page.get_by_role("row").filter(has=page.get_by_role("checkbox"))
    await expect(rows).to_have_count(3)
    await expect(rows.first).to_contain_text("triagem")
    for box in await page.get_by_role("checkbox").all():
        await expect(box).to_be_checked()
    await _check(page, "instances", violations)
    left_view = await engine.status(left)
    await page.get_by_label(f"Migrar o processo {left_view.protocol}").uncheck()
    await page.get_by_role("button", name="Continuar: mapear etapas").click()

    select = page.locator("#map-triagem")
    await expect(select).to_have_value("")
    await expect(page.locator("#map-triagem-help")).to_contain_text("Não existe na versão 2")
    await _check(page, "mapping", violations)
    await page.get_by_role("button", name="Simular (nada muda)").click()

    await expect(page.get_by_role("status")).to_contain_text("0 processo seria migrado")
    await expect(page.get_by_role("alert")).to_contain_text("Etapa triagem")
    await expect(select).to_have_attribute("aria-invalid", "true")
    await expect(select).to_have_attribute("aria-describedby", "map-triagem-help map-triagem-error")
    await expect(page.locator("#map-triagem-error")).to_contain_text("2 processos")
    await expect(select).to_be_focused()
    await expect(page.get_by_role("button", name="Migrar 2 processos")).to_have_count(0)
    await _check(page, "dry-run-blocked", violations)

    await select.select_option("analise")
    await page.get_by_role("button", name="Simular de novo com este mapeamento").click()
    await expect(page.get_by_role("status")).to_contain_text("2 processos seriam migrados")
    await expect(page.get_by_role("alert")).to_have_count(0)
    report = page.get_by_role("table", name="O que aconteceria com cada processo escolhido")
    await expect(report).to_contain_text("triagem → analise (reentra)")
    hidden = page.locator("#run input[name=expected_versions]")
    await expect(hidden).to_have_count(2)
    await _check(page, "dry-run", violations)

    await page.get_by_role("button", name="Migrar 2 processos").click()
    await expect(page.get_by_role("alert")).to_contain_text("Informe o motivo da migração.")
    await expect(page.get_by_label("Motivo")).to_be_focused()
    await expect(page.get_by_label("Motivo")).to_have_attribute("aria-invalid", "true")
    assert (await engine.status(first)).definition_version == 1
    await _check(page, "reason-missing", violations)

    await page.get_by_label("Motivo").fill("Triagem passou a se chamar análise")
    await page.get_by_role("button", name="Migrar 2 processos").click()
    await expect(page.get_by_role("status")).to_contain_text("2 processos migrados")
    done = page.get_by_role("table", name="Resultado da migração de cada processo")
    await expect(done.get_by_role("row").filter(has_text="Migrado")).to_have_count(2)
    await _check(page, "result", violations)
    await done.get_by_role("link").first.click()
    await expect(page.get_by_role("heading", level=1)).to_contain_text("Processo MIG")
    await context.close()

    assert violations == {name: [] for name in violations}
    for moved in (first, second):
        view = await engine.status(moved)
        assert (view.definition_version, view.current_nodes) == (2, ("analise",))
        assert [t.node_id for t in await engine.tasks(moved) if t.status == "ready"] == ["analise"]
    stayed = await engine.status(left)
    assert (stayed.definition_version, stayed.current_nodes) == (1, ("triagem",))


async def test_the_wizard_works_without_javascript(site: Site, browser: Browser) -> None:
    (only,) = await _setup(site, 1)
    context, page = await new_page(browser, java_script_enabled=False)
    await login(page, site, OPERATOR)
    await _to_instances(page, site)
    await page.get_by_role("button", name="Continuar: mapear etapas").click()
    await page.locator("#map-triagem").select_option("analise")
    await page.get_by_role("button", name="Simular (nada muda)").click()
    await page.get_by_label("Motivo").fill("Sem JavaScript")
    await page.get_by_role("button", name="Migrar 1 processo").click()
    await expect(page.get_by_role("status")).to_contain_text("1 processo migrado")
    await context.close()
    assert (await site.service.engine.status(only)).current_nodes == ("analise",)


async def test_an_instance_that_moved_after_the_dry_run_is_not_migrated(
    site: Site, browser: Browser
) -> None:
    (only,) = await _setup(site, 1)
    context, page = await new_page(browser)
    await login(page, site, OPERATOR)
    await _to_instances(page, site)
    await page.get_by_role("button", name="Continuar: mapear etapas").click()
    await page.locator("#map-triagem").select_option("analise")
    await page.get_by_role("button", name="Simular (nada muda)").click()
    migrator: Migrator = site.service.migrator
    await migrator.repair(only, token_id="t", to_node="triagem", reason="refazer", actor=PUBLISHER)
    await page.get_by_label("Motivo").fill("Atrasado")
    await page.get_by_role("button", name="Migrar 1 processo").click()
    done = page.get_by_role("table", name="Resultado da migração de cada processo")
    await expect(done).to_contain_text("O processo mudou desde a simulação")
    await expect(page.get_by_role("status")).to_contain_text("0 processo migrado")
    await context.close()
    assert (await site.service.engine.status(only)).definition_version == 1


async def test_tampered_hidden_fields_are_refused_on_their_step(
    site: Site, browser: Browser
) -> None:
    await _setup(site, 1)
    context, page = await new_page(browser)
    await login(page, site, OPERATOR)
    await _to_instances(page, site)
    await page.get_by_role("button", name="Continuar: mapear etapas").click()

    await _set_hidden(page, "instance", "0190d1a0-0000-7000-8000-00000000dead")
    await page.get_by_role("button", name="Simular (nada muda)").click()
    await expect(page.get_by_role("alert")).to_contain_text("Não estão em andamento")
    await expect(page.get_by_role("heading", level=1)).to_contain_text("Passo 2 de 5")

    await page.get_by_role("checkbox").first.check()
    await page.get_by_role("button", name="Continuar: mapear etapas").click()
    await _set_hidden(page, "to_version", "9")
    await page.get_by_role("button", name="Simular (nada muda)").click()
    await expect(page.get_by_role("alert")).to_contain_text("A versão 9 não existe")
    await expect(page.get_by_label("Versão de destino")).to_be_focused()

    await page.get_by_role("button", name="Continuar: escolher processos").click()
    await page.get_by_role("button", name="Continuar: mapear etapas").click()
    await page.evaluate(
        "() => { const o = document.createElement('option'); o.value = 'nowhere';"
        " o.textContent = 'nowhere'; document.querySelector('#map-triagem').append(o); }"
    )
    await page.locator("#map-triagem").select_option("nowhere")
    await page.get_by_role("button", name="Simular (nada muda)").click()
    await expect(page.locator("#map-triagem-error")).to_have_text(
        "A etapa nowhere não existe na versão 2."
    )
    await expect(page.get_by_role("button", name="Migrar 1 processo")).to_have_count(0)
    await context.close()


async def _set_hidden(page: Page, name: str, value: str) -> None:
    await page.evaluate(
        "([name, value]) => { for (const input of document.querySelectorAll("
        "`form input[type=hidden][name=${name}]`)) input.value = value; }",
        [name, value],
    )


async def test_a_person_without_the_operate_permission_cannot_open_the_wizard(
    site: Site, browser: Browser
) -> None:
    reader = await add_reader(site.platform)
    context, page = await new_page(browser)
    await login(page, site, reader)
    response = await page.goto(f"{site.url}{MIGRATIONS}")
    await context.close()
    assert response is not None and response.status == 403
