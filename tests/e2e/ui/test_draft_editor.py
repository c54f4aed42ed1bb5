"""The draft editor in a real browser, driven from the keyboard only (focus, Tab, typing and
Enter; no mouse clicks): build a flow from scratch, see validation errors beside the node, fix
them and publish; copy a published version and edit it with JavaScript disabled; a concurrent
edit is refused without losing what was typed. axe-core runs on every editor page."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, Locator, Page, expect

from contracts.errors import NotFound
from core.identity import Directory
from tests.e2e.ui.conftest import PASSWORD, Site, new_page, serious_violations, shoot

EDITOR = "editora"
DRAFTS = "/cms/workflow/drafts"


async def _editor_user(site: Site) -> None:
    """A person who may publish (the shared fixture's staff only read and act on tasks)."""
    platform = site.platform
    directory = Directory(
        platform.database, platform.clock, platform.ids, platform.registrations.permissions
    )
    grants = ("workflow.read", "workflow.publish", "workflow.tasks")
    await directory.ensure_profile("modelagem", "modelagem", grants)
    await directory.create_user(
        EDITOR, display_name="Editora", profile="modelagem", password=PASSWORD
    )


async def _type(field: Locator, text: str) -> None:
    """Focus a field, select what it holds and type over it, as a person would."""
    await field.focus()
    await field.page.keyboard.press("Control+A")
    await field.page.keyboard.type(text)


async def _choose(select: Locator, label: str) -> None:
    """Pick an option of a closed select by typing its label (Chromium's typeahead).

    Only the label's leading ASCII is typed: Playwright sends a character the US key map lacks
    (the ``ã`` of "Decisão", the ``á`` of "Etapa automática") as inserted text, which Chromium
    does not treat as typeahead on a ``<select>`` but writes into the last focused text field,
    focus included. The prefix is enough for typeahead (every option label here starts with
    more ASCII than the others share), and the assertion checks the whole label was picked.
    """
    await select.focus()
    await select.page.keyboard.type(_typeable_prefix(label))
    await expect(select.locator("option:checked")).to_have_text(label)


def _typeable_prefix(label: str) -> str:
    """``label`` up to its first character a US keyboard has no key for."""
    for position, char in enumerate(label):
        if not (char.isascii() and char.isprintable()):
            return label[:position]
    return label


async def _enter(control: Locator) -> None:
    await control.focus()
    await control.page.keyboard.press("Enter")


async def _keyboard_login(page: Page, site: Site) -> None:
    await page.goto(f"{site.url}/cms/login")
    await _type(page.get_by_label("Usuário"), EDITOR)
    await page.keyboard.press("Tab")
    await page.keyboard.type(PASSWORD)
    await page.keyboard.press("Enter")
    await page.wait_for_url("**/cms/workflow/inbox")


async def _open_node(page: Page, node_id: str) -> Locator:
    """Expand a node's edit forms (``<details>``) with Enter on its summary."""
    node = page.locator(f"#node-{node_id}")
    await _enter(node.get_by_text(f"Editar etapa {node_id}", exact=True))
    return node


async def _add_node(page: Page, node_id: str, kind: str, name: str) -> None:
    await _type(page.get_by_label("Identificador da nova etapa"), node_id)
    await page.keyboard.press("Tab")
    await _choose(page.locator("#f-add-node_type"), kind)
    await page.keyboard.press("Tab")
    await page.keyboard.type(name)
    await _enter(page.get_by_role("button", name="Adicionar etapa", exact=True))
    await expect(page.get_by_role("status")).to_contain_text("Etapa adicionada.")


async def _connect(page: Page, source: str, target: str) -> None:
    node = await _open_node(page, source)
    await _choose(node.get_by_label(f"Conectar {source} a"), target)
    await _enter(node.get_by_role("button", name=f"Conectar {source}", exact=True))
    await expect(page.get_by_role("status")).to_contain_text("Transição adicionada.")


async def _set_properties(page: Page, node_id: str, values: dict[str, str]) -> None:
    node = await _open_node(page, node_id)
    for field, value in values.items():
        await _type(node.locator(f"#f-{node_id}-properties-{field}"), value)
    await _enter(node.get_by_role("button", name=f"Salvar propriedades de {node_id}"))
    await expect(page.get_by_role("status")).to_contain_text("Propriedades salvas.")


async def test_a_flow_is_built_validated_fixed_and_published_from_the_keyboard(
    site: Site, browser: Browser
) -> None:
    await _editor_user(site)
    context, page = await new_page(browser)
    violations: dict[str, list[object]] = {}
    await _keyboard_login(page, site)

    await _enter(page.get_by_role("link", name="Rascunhos"))
    await expect(page.get_by_role("heading", level=1)).to_have_text("Rascunhos de definições")
    violations["list"] = await serious_violations(page)
    await _enter(page.get_by_role("link", name="Novo rascunho"))
    await expect(page.get_by_role("heading", level=1)).to_have_text("Novo rascunho")
    violations["new"] = await serious_violations(page)
    await _type(page.get_by_label("Chave da definição"), "editor.triagem")
    await page.keyboard.press("Tab")
    await page.keyboard.type("Triagem de pedidos")
    await page.keyboard.press("Tab")
    await page.keyboard.type("tr")
    await page.keyboard.press("Enter")
    await expect(page.get_by_role("alert")).to_contain_text("Prefixo de protocolo")
    prefix = page.get_by_label("Prefixo de protocolo")
    await expect(prefix).to_be_focused()
    await expect(page.get_by_label("Nome")).to_have_value("Triagem de pedidos")
    violations["new-errors"] = await serious_violations(page)
    await shoot(page, "20-draft-new-errors")
    await _type(prefix, "TRI")
    await page.keyboard.press("Enter")
    await expect(page.get_by_role("status")).to_have_text("Rascunho criado.")

    await _add_node(page, "analise", "Tarefa de pessoa", "Analisar pedido")
    await _add_node(page, "publicar", "Etapa automática", "Publicar resultado")
    steps = page.locator("#nodes > li")
    await expect(steps).to_have_count(4)
    await expect(steps.nth(2)).to_have_id("node-publicar")

    await _type(page.get_by_label("Identificador da nova etapa"), "analise")
    await _enter(page.get_by_role("button", name="Adicionar etapa", exact=True))
    await expect(page.get_by_role("alert")).to_contain_text("Já existe uma etapa analise.")
    await expect(page.get_by_label("Identificador da nova etapa")).to_be_focused()
    violations["draft-errors"] = await serious_violations(page)

    await _connect(page, "start", "analise")
    await _connect(page, "analise", "publicar")
    await _set_properties(page, "analise", {"queue": "diario.revisao"})
    await _set_properties(
        page, "publicar", {"handler": "diario.publish", "pending_queue": "diario.publicacao"}
    )
    await expect(page.locator("#node-publicar")).to_contain_text("diario.publish")
    for node_id in ("start", "analise", "publicar", "end"):
        await _open_node(page, node_id)
    violations["draft"] = await serious_violations(page)
    await shoot(page, "21-draft-editor")

    await _enter(page.get_by_role("button", name="Validar rascunho"))
    await expect(page.get_by_role("alert")).to_contain_text("Validação")
    await expect(page.locator("#node-publicar-errors")).to_contain_text("next")
    await expect(page.locator("#node-analise .error")).to_have_count(0)
    violations["validation"] = await serious_violations(page)
    await shoot(page, "22-draft-validation-errors")

    await _connect(page, "publicar", "end")
    await _enter(page.get_by_role("button", name="Validar rascunho"))
    await expect(page.get_by_role("status")).to_contain_text("nenhum problema")
    await _enter(page.get_by_role("button", name="Publicar como nova versão"))
    await page.wait_for_url("**/cms/workflow/definitions/editor.triagem/versions/1?msg=published")
    published_notice = page.get_by_role("status").filter(has_text="Versão 1 publicada.")
    await expect(published_notice).to_have_count(1)
    review_lane = page.get_by_role("region", name="Raia diario.revisao")
    await expect(review_lane.locator("#node-analise")).to_have_count(1)

    await _enter(page.get_by_role("link", name="Rascunhos"))
    published = page.get_by_role("row", name="editor.triagem")
    await expect(published).to_contain_text("publicado como versão 1")
    violations["list-published"] = await serious_violations(page)
    await shoot(page, "23-draft-list")
    await _enter(published.get_by_role("link", name="Ver rascunho de editor.triagem"))
    await expect(page.get_by_role("status")).to_contain_text("publicado como versão 1")
    await expect(page.get_by_role("button", name="Publicar como nova versão")).to_have_count(0)
    violations["draft-published"] = await serious_violations(page)
    await context.close()

    assert violations == {name: [] for name in violations}


async def test_a_copied_version_is_edited_without_javascript(site: Site, browser: Browser) -> None:
    await _editor_user(site)
    context, page = await new_page(browser, java_script_enabled=False)
    await _keyboard_login(page, site)
    await page.goto(f"{site.url}/cms/workflow/definitions")
    await _enter(page.get_by_role("link", name="Editar como rascunho de diario.publicacao v1"))
    await expect(page.get_by_label("Versão de origem")).to_have_value("diario.publicacao@1")
    await _enter(page.get_by_role("button", name="Criar rascunho a partir da versão"))
    await expect(page.get_by_role("status")).to_contain_text("a partir da versão publicada")

    node = await _open_node(page, "review")
    await _type(node.get_by_label("Novo identificador de review"), "revisao")
    await _enter(node.get_by_role("button", name="Renomear review"))
    await page.wait_for_url(re.compile(r"#node-revisao$"))
    await expect(page.locator("#node-submitted")).to_contain_text("segue para revisao")
    await expect(page.locator("#node-approve")).to_contain_text("revisao")

    node = await _open_node(page, "rejected")
    await _enter(node.get_by_role("button", name="Remover etapa rejected"))
    removed = page.get_by_role("status")
    await expect(removed).to_contain_text("revisao resultado «reject» para rejected")
    await expect(removed).to_contain_text("approve resultado «reject» para rejected")
    await expect(page.locator("#node-rejected")).to_have_count(0)

    node = await _open_node(page, "approve")
    await _enter(node.get_by_role("button", name="Subir approve"))
    await expect(page.locator("#nodes > li").nth(1)).to_have_id("node-approve")
    await expect(page.locator("#nodes > li").nth(2)).to_have_id("node-revisao")
    await context.close()


async def test_a_malformed_condition_is_refused_and_an_invalid_draft_is_not_published(
    site: Site, browser: Browser
) -> None:
    await _editor_user(site)
    context, page = await new_page(browser, java_script_enabled=False)
    await _keyboard_login(page, site)
    await page.goto(f"{site.url}{DRAFTS}/new")
    await _type(page.get_by_label("Chave da definição"), "editor.rota")
    await _type(page.get_by_label("Nome"), "Rota")
    await _type(page.get_by_label("Prefixo de protocolo"), "ROT")
    await page.keyboard.press("Enter")
    await _add_node(page, "rota", "Decisão", "Decidir")
    node = await _open_node(page, "rota")
    await _choose(node.get_by_label("Conectar rota a"), "end")
    await _type(node.get_by_label("Condição (CEL)"), "valor > ")
    await _enter(node.get_by_role("button", name="Conectar rota", exact=True))
    await expect(page.get_by_role("alert")).to_contain_text("Expressão malformada")
    condition = page.locator("#f-rota-connect-condition")
    await expect(condition).to_have_attribute("aria-invalid", "true")
    await expect(condition).to_have_value("valor >")

    await _enter(page.get_by_role("button", name="Publicar como nova versão"))
    await expect(page.get_by_role("alert")).to_contain_text("Não publicado")
    await expect(page.locator("#node-start-errors")).to_contain_text("next")
    with pytest.raises(NotFound):
        await site.service.engine.publisher.latest("editor.rota")

    await _enter(page.get_by_role("button", name="Descartar este rascunho"))
    await expect(page.get_by_role("status")).to_have_text("Rascunho descartado.")
    await expect(page.get_by_role("row", name="editor.rota")).to_have_count(0)
    await context.close()


async def test_a_concurrent_edit_is_refused_and_the_typed_value_is_kept(
    site: Site, browser: Browser
) -> None:
    await _editor_user(site)
    context, first = await new_page(browser)
    await _keyboard_login(first, site)
    await first.goto(f"{site.url}{DRAFTS}/new")
    await _type(first.get_by_label("Chave da definição"), "editor.conflito")
    await _type(first.get_by_label("Nome"), "Conflito")
    await _type(first.get_by_label("Prefixo de protocolo"), "CON")
    await first.keyboard.press("Enter")
    await expect(first.get_by_role("status")).to_have_text("Rascunho criado.")
    second = await context.new_page()
    await second.goto(first.url)

    await _add_node(first, "triagem", "Tarefa manual", "Triagem")
    await _type(second.get_by_label("Identificador da nova etapa"), "arquivo")
    await _choose(second.locator("#f-add-node_type"), "Fim")
    await _enter(second.get_by_role("button", name="Adicionar etapa", exact=True))
    conflict = second.get_by_role("alert")
    await expect(conflict).to_contain_text("O rascunho mudou")
    await expect(conflict.get_by_role("link", name="formulário")).to_have_attribute(
        "href", "#f-add-node_id"
    )
    await expect(second.get_by_label("Identificador da nova etapa")).to_have_value("arquivo")
    await expect(second.locator("#f-add-node_type")).to_have_value("end")
    await expect(second.locator("#node-triagem")).to_have_count(1)
    conflict_violations = await serious_violations(second)
    await shoot(second, "24-draft-conflict")
    await _enter(second.get_by_role("button", name="Adicionar etapa", exact=True))
    await expect(second.get_by_role("status")).to_contain_text("Etapa adicionada.")
    await expect(second.locator("#nodes > li")).to_have_count(4)
    await context.close()
    assert conflict_violations == []


async def test_the_editor_needs_the_publish_permission(site: Site, browser: Browser) -> None:
    context, page = await new_page(browser)
    await page.goto(f"{site.url}/cms/login")
    await _type(page.get_by_label("Usuário"), "revisor")
    await _type(page.get_by_label("Senha"), PASSWORD)
    await page.keyboard.press("Enter")
    await page.wait_for_url("**/cms/workflow/inbox")
    response = await page.goto(f"{site.url}{DRAFTS}")
    await context.close()
    assert response is not None and response.status == 403
