"""The version page's diagram of a definition with every phase-2 construct (issue #24), in a
real browser under the page's CSP: one shape per top-level node, then the embedded
sub-process's drill-down shows its inner nodes (they are drawn on a plane of their own)."""

from __future__ import annotations

from lxml import etree  # type: ignore[import-untyped]  # lxml ships no stubs
from playwright.async_api import Browser, expect

from contracts.kernel import Actor
from services.workflow.definition.bpmn.namespaces import BPMNDI
from tests.e2e.ui.conftest import Site, login, shoot
from tests.e2e.ui.test_definition_diagram import _rendered_shape_ids, _strict_page, bundle
from tests.unit.bpmn.bpmn_phase2 import ANALYSIS, PHASE2

VERSION = f"/cms/workflow/definitions/{PHASE2['key']}/versions/1"
TOP_LEVEL = {str(n["id"]) for n in PHASE2["nodes"]}
SUBPROCESS = str(ANALYSIS["id"])

__all__ = ["bundle"]  # the fixture, used by name


def _plane_shapes(xml: bytes, element: str) -> list[str]:
    """The shapes drawn on the plane of ``element`` (the process or a sub-process)."""
    root = etree.fromstring(xml)
    (plane,) = [p for p in root.iter(f"{{{BPMNDI}}}BPMNPlane") if p.get("bpmnElement") == element]
    return sorted(str(s.get("bpmnElement")) for s in plane.iter(f"{{{BPMNDI}}}BPMNShape"))


async def test_every_phase2_construct_is_drawn_and_the_subprocess_drills_down(
    site: Site, browser: Browser, bundle: None
) -> None:
    await site.service.engine.publisher.publish(PHASE2, actor=Actor(id="publisher"))
    context, page, problems = await _strict_page(browser)
    await login(page, site, "revisor")
    await page.goto(f"{site.url}{VERSION}")
    top = sorted(await _rendered_shape_ids(page))
    await expect(page.locator("figure.diagram")).to_have_class("diagram diagram-ready")
    xml = await (await page.request.get(f"{site.url}{VERSION}/diagram.bpmn")).body()

    figure = page.locator("figure.diagram")
    await figure.locator(f'.djs-overlays[data-container-id="{SUBPROCESS}"] .bjs-drilldown').click()
    inner_start = figure.locator(f'svg .djs-shape[data-element-id="{SUBPROCESS}_begin"]')
    await expect(inner_start).to_be_attached()
    inner = sorted(await _rendered_shape_ids(page))
    await expect(figure.locator(".bjs-breadcrumbs")).to_contain_text(str(ANALYSIS["name"]))
    await shoot(page, "14-definition-diagram-subprocess")
    violations: list[str] = await page.evaluate("window.__csp")
    await context.close()

    assert top == _plane_shapes(xml, str(PHASE2["key"]))
    assert set(top) >= TOP_LEVEL
    assert inner == _plane_shapes(xml, SUBPROCESS)
    assert set(inner) >= {f"{SUBPROCESS}_begin", "check", f"{SUBPROCESS}_race", "review"}
    assert (violations, problems) == ([], [])
