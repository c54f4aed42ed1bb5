"""Definitions pages in a real browser: versions, swimlanes, publishing a file (an invalid one
shows its errors beside the node), comparing versions, and axe-core on every new page."""

from __future__ import annotations

import copy
import json
from typing import Any

from playwright.async_api import Browser, FilePayload, Page, expect

from core.identity import Directory
from modules.diario.workflows import PUBLICACAO
from services.workflow.definition.bpmn import export_bpmn
from tests.e2e.ui.conftest import PASSWORD, Site, login, new_page, serious_violations, shoot

MODELER = "modeladora"
DEFINITIONS = "/cms/workflow/definitions"


async def _modeler(site: Site) -> None:
    """A person who may publish (the shared fixture's staff only read and act on tasks)."""
    platform = site.platform
    directory = Directory(
        platform.database, platform.clock, platform.ids, platform.registrations.permissions
    )
    grants = ("workflow.read", "workflow.publish", "workflow.tasks")
    await directory.ensure_profile("definicoes", "definicoes", grants)
    await directory.create_user(
        MODELER, display_name="Modeladora", profile="definicoes", password=PASSWORD
    )


def _file(name: str, definition: dict[str, Any]) -> FilePayload:
    body = json.dumps(definition).encode()
    return {"name": name, "mimeType": "application/json", "buffer": body}


def _with_review(**changes: Any) -> dict[str, Any]:
    definition = copy.deepcopy(PUBLICACAO)
    review = next(n for n in definition["nodes"] if n["id"] == "review")
    review.update(changes)
    return definition


def _second_version() -> dict[str, Any]:
    definition = _with_review(
        name="Revisar matéria",
        outcomes={"approve": "approve", "reject": "rejected", "withdraw": "withdrawn"},
    )
    definition["nodes"].append({"id": "withdrawn", "type": "end", "result": "rejected"})
    return definition


async def _publish(page: Page, site: Site, name: str, content: dict[str, Any] | bytes) -> None:
    await page.goto(f"{site.url}{DEFINITIONS}/publish")
    upload: FilePayload
    if isinstance(content, bytes):
        upload = {"name": name, "mimeType": "application/xml", "buffer": content}
    else:
        upload = _file(name, content)
    await page.get_by_label("Arquivo da definição").set_input_files(files=[upload])
    await page.get_by_role("button", name="Publicar").click()


async def test_a_modeler_lists_reads_publishes_and_compares_definition_versions(
    site: Site, browser: Browser
) -> None:
    await _modeler(site)
    context, page = await new_page(browser)
    violations: dict[str, list[dict[str, Any]]] = {}
    await login(page, site, MODELER)

    await page.get_by_role("link", name="Definições").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Definições de fluxo")
    violations["definitions"] = await serious_violations(page)
    await shoot(page, "10-definitions")

    await page.get_by_role("link", name="Versão 1 de diario.publicacao").click()
    review_lane = page.get_by_role("region", name="Raia diario.revisao")
    await expect(review_lane.locator("#node-review")).to_contain_text("diario.review@1")
    worker_lane = page.get_by_role("region", name="Raia integration")
    await expect(worker_lane.locator("#node-publish")).to_contain_text("diario.publish")
    violations["version"] = await serious_violations(page)
    await shoot(page, "11-definition-version")

    invalid = _with_review(outcomes={"approve": "approve", "reject": "nowhere"})
    await _publish(page, site, "invalida.json", invalid)
    await expect(page.get_by_role("alert")).to_contain_text("não foi publicado")
    await expect(page.locator("#node-review-errors")).to_contain_text("nowhere")
    await expect(page.locator("#node-approve .error")).to_have_count(0)
    violations["publish-errors"] = await serious_violations(page)
    await shoot(page, "12-definition-publish-errors")

    await _publish(page, site, "v2.json", _second_version())
    await expect(page.locator("p.notice[role=status]")).to_have_text("Versão 2 publicada.")
    await page.get_by_role("link", name="Comparar com a versão 1").click()
    rows = page.get_by_role("row")
    await expect(rows.filter(has_text="withdrawn")).to_contain_text("adicionada")
    await expect(rows.filter(has_text="review")).to_contain_text("name, outcomes")
    await expect(page.get_by_role("row", name="publish igual")).to_have_count(1)
    violations["compare"] = await serious_violations(page)
    await shoot(page, "13-definition-compare")
    await context.close()

    assert violations == {name: [] for name in violations}


async def test_an_invalid_bpmn_upload_shows_the_error_beside_the_imported_node(
    site: Site, browser: Browser
) -> None:
    await _modeler(site)
    context, page = await new_page(browser, java_script_enabled=False)
    await login(page, site, MODELER)
    broken = _with_review(form="diario.nao_existe@1")
    await _publish(page, site, "invalida.bpmn", export_bpmn(broken))
    await expect(page.get_by_role("alert")).to_contain_text("não foi publicado")
    await expect(page.locator("#node-review-errors")).to_contain_text("bpmn:")
    await context.close()


async def test_a_reader_without_the_publish_permission_cannot_open_the_publish_form(
    site: Site, browser: Browser
) -> None:
    context, page = await new_page(browser)
    await login(page, site, "revisor")
    response = await page.goto(f"{site.url}{DEFINITIONS}/publish")
    await context.close()
    assert response is not None and response.status == 403
