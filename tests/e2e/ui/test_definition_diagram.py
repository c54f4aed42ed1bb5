"""The version page's read-only diagram (bpmn-js, bundled by ``scripts/build_ui.sh``) in a real
browser: drawn under the page's own CSP with no violation, one shape per node, accessible; and
without JavaScript the list and the BPMN download still serve."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lxml import etree  # type: ignore[import-untyped]  # lxml ships no stubs
from playwright.async_api import Browser, BrowserContext, Page, Response, expect

from modules.diario.workflows import PUBLICACAO
from services.workflow.definition.bpmn.namespaces import BPMNDI
from services.workflow.ui import definitions
from services.workflow.ui.definitions import DIAGRAM_BUNDLE
from tests.conftest import unavailable
from tests.e2e.ui.conftest import Site, login, new_page, serious_violations, shoot

VERSION = "/cms/workflow/definitions/diario.publicacao/versions/1"
DIAGRAM = f"{VERSION}/diagram.bpmn"
NODE_IDS = {str(n["id"]) for n in PUBLICACAO["nodes"]}
WATCH_CSP = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(`${e.effectiveDirective} ${e.blockedURI}`);
});
"""


@pytest.fixture
def bundle() -> None:
    if not DIAGRAM_BUNDLE.is_file():
        unavailable("the diagram bundle", f"{DIAGRAM_BUNDLE} is missing (bash scripts/build_ui.sh)")


async def _strict_page(browser: Browser) -> tuple[BrowserContext, Page, list[str]]:
    """A page that enforces the server's CSP (the shared helper bypasses it for axe)."""
    context = await browser.new_context(locale="pt-BR")
    await context.add_init_script(WATCH_CSP)
    page = await context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if _counts(m.type, m.text) else None)
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.on("response", lambda r: problems.append(f"{r.status} {r.url}") if _fails(r) else None)
    return context, page, problems


def _counts(kind: str, text: str) -> bool:
    """Console errors, except Chromium's line for a failed request (logged with its URL below)."""
    return kind == "error" and not text.startswith("Failed to load resource")


def _fails(response: Response) -> bool:
    """A failed request, except the favicon Chromium asks for on its own (no page links one)."""
    return response.status >= 400 and not response.url.endswith("/favicon.ico")


async def _rendered_shape_ids(page: Page) -> list[str]:
    figure = page.locator("figure.diagram")
    await expect(figure.locator("svg .djs-shape[data-element-id]").first).to_be_attached()
    ids: list[str] = await figure.locator("svg .djs-shape[data-element-id]").evaluate_all(
        "els => els.map(e => e.getAttribute('data-element-id'))"
    )
    return [i for i in ids if not i.endswith("_label")]


def _shapes_in(xml: bytes) -> list[str]:
    root = etree.fromstring(xml)
    return [str(s.get("bpmnElement")) for s in root.iter(f"{{{BPMNDI}}}BPMNShape")]


async def test_the_version_page_draws_one_shape_per_node_under_its_csp(
    site: Site, browser: Browser, bundle: None
) -> None:
    context, page, problems = await _strict_page(browser)
    await login(page, site, "revisor")
    response = await page.goto(f"{site.url}{VERSION}")
    rendered = await _rendered_shape_ids(page)
    await expect(page.locator("figure.diagram")).to_have_class("diagram diagram-ready")
    await expect(page.locator("figure.diagram .diagram-status")).to_be_hidden()
    xml = await (await page.request.get(f"{site.url}{DIAGRAM}")).body()
    violations: list[str] = await page.evaluate("window.__csp")
    await context.close()

    assert response is not None
    csp = response.headers["content-security-policy"]
    assert "script-src 'self';" in csp and "connect-src 'self';" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert sorted(rendered) == sorted(_shapes_in(xml))
    assert sorted(i for i in rendered if i in NODE_IDS) == sorted(NODE_IDS)
    assert (violations, problems) == ([], [])


async def test_the_drawn_version_page_has_no_serious_accessibility_violation(
    site: Site, browser: Browser, bundle: None
) -> None:
    context, page = await new_page(browser)
    await login(page, site, "revisor")
    await page.goto(f"{site.url}{VERSION}")
    await _rendered_shape_ids(page)
    await expect(page.locator("figure.diagram figcaption")).to_contain_text("equivalente acessível")
    violations: list[dict[str, Any]] = await serious_violations(page)
    await shoot(page, "14-definition-diagram")
    await context.close()
    assert violations == []


async def test_without_javascript_the_list_a_note_and_the_bpmn_download_remain(
    site: Site, browser: Browser, bundle: None
) -> None:
    context, page = await new_page(browser, java_script_enabled=False, accept_downloads=True)
    await login(page, site, "revisor")
    await page.goto(f"{site.url}{VERSION}")
    await expect(page.locator("#node-review")).to_contain_text("diario.review@1")
    await expect(page.locator("figure.diagram .diagram-canvas")).to_be_hidden()
    await expect(page.locator("figure.diagram")).to_contain_text("desenhado com JavaScript")
    async with page.expect_download() as info:
        await page.get_by_role("link", name="Baixar BPMN 2.0").click()
    download = await info.value
    xml = (await download.path()).read_bytes()
    await context.close()
    assert download.suggested_filename == "diario.publicacao-v1.bpmn"
    assert set(_shapes_in(xml)) >= NODE_IDS


async def test_without_the_bundle_the_page_sends_no_script_and_keeps_the_list(
    site: Site, browser: Browser, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(definitions, "DIAGRAM_BUNDLE", tmp_path / "not-built.js")
    context, page = await new_page(browser)
    await login(page, site, "revisor")
    response = await page.goto(f"{site.url}{VERSION}")
    await expect(page.locator("#node-review")).to_contain_text("diario.review@1")
    await expect(page.get_by_role("link", name="Baixar BPMN 2.0")).to_have_attribute(
        "href", DIAGRAM
    )
    scripts, figures = await page.locator("script").count(), await page.locator("figure").count()
    await context.close()
    assert response is not None
    assert "script-src" not in response.headers["content-security-policy"]
    assert (scripts, figures) == (0, 0)


async def test_the_bpmn_download_needs_a_session(site: Site, browser: Browser) -> None:
    context, page = await new_page(browser)
    response = await page.request.get(f"{site.url}{DIAGRAM}", max_redirects=0)
    await context.close()
    assert response.status == 303
    assert response.headers["location"].startswith("/cms/login")


async def test_the_bpmn_download_is_xml_sent_as_an_attachment(site: Site, browser: Browser) -> None:
    context, page = await new_page(browser)
    await login(page, site, "revisor")
    response = await page.request.get(f"{site.url}{DIAGRAM}")
    await context.close()
    assert response.status == 200
    assert response.headers["content-type"].startswith("application/xml")
    assert response.headers["content-disposition"].startswith("attachment;")
    assert response.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("javascript", [True, False], ids=["390-js", "390-nojs"])
async def test_on_a_phone_the_version_page_fits_drawn_or_listed(
    site: Site, browser: Browser, bundle: None, javascript: bool
) -> None:
    context, page = await new_page(
        browser, viewport={"width": 390, "height": 844}, java_script_enabled=javascript
    )
    await login(page, site, "revisor")
    await page.goto(f"{site.url}{VERSION}")
    await expect(page.locator("html")).to_have_attribute("lang", "pt-BR")
    await expect(page.locator("#node-review")).to_contain_text("diario.review@1")
    violations: list[dict[str, Any]] = []
    if javascript:
        await _rendered_shape_ids(page)
        violations = await serious_violations(page)
    else:
        await expect(page.locator("figure.diagram")).to_contain_text("desenhado com JavaScript")
    overflow: int = await page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    await shoot(page, f"14-definition-diagram-390-{'js' if javascript else 'nojs'}")
    await context.close()
    assert (violations, overflow) == ([], 0)
