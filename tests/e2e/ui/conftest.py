"""A real uvicorn server over a booted platform (workflow service + Diário), and Chromium.

The server runs on the test's own event loop (the platform's database engine is bound to it),
on a free loopback port; Playwright's async API drives Debian's Chromium headless.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from playwright.async_api import Browser, BrowserContext, Page, async_playwright, expect

from core.app import Platform
from core.clock import FixedClock
from core.identity import Directory
from core.ids import SequentialIdGen
from core.settings import Settings
from modules.diario.demo import AUTHOR
from modules.diario.records import Act, ActStore
from modules.diario.workflows import APPROVER_ID, AUTHOR_ID, PROFILES, REVIEWER_ID
from services.workflow.bootstrap import WorkflowService, service_of
from tests.apps import app_for
from tests.conftest import unavailable

ROOT = Path(__file__).resolve().parents[3]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
SHOTS = ROOT / "build" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# An expectation waits up to 15 s (Playwright's default is 5): on a loaded 2-core machine the
# diagram bundle alone has taken longer than 5 s to parse and draw. A passing check returns as
# soon as it holds, so this only changes how long a real failure takes to report.
expect.set_options(timeout=15_000)
PASSWORD = "senha-de-teste-123"
STAFF = (
    (AUTHOR_ID, "autora", "Autora", "diario.redacao"),
    (REVIEWER_ID, "revisor", "Revisor", "diario.revisao"),
    (APPROVER_ID, "aprovadora", "Aprovadora", "diario.revisao"),
)
UI_GRANTS = ("workflow.tasks", "workflow.read", "workflow.cancel", "workflow.operate")
SCREENS = [(1280, True), (390, False)]
SCREEN_IDS = ["1280-js", "390-nojs"]
"""The screens a page journey runs on: a desk with JavaScript and a phone without it. Each width
and each mode is covered once, paired; the layout follows the width and the behaviour the
JavaScript, and the phone-with-JavaScript pages have tests of their own (test_flow_pages_on_a_phone,
test_definition_diagram, test_landing_and_phone)."""
DESK_VIEW = {"width": 1280, "height": 900}
PHONE_VIEW = {"width": 390, "height": 844}
VIEWS = [(DESK_VIEW, True), (PHONE_VIEW, False)]
"""SCREENS as Playwright viewports."""


@dataclass
class Site:
    url: str
    platform: Platform
    service: WorkflowService

    async def submit_act(self, title: str = "Portaria 7") -> Act:
        store = ActStore(self.platform)
        act = await store.draft(title=title, body="...", author_id=AUTHOR_ID)
        await store.submit(act.id, actor=AUTHOR)
        await self.service.delivery.drain()
        return await store.get(act.id)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _staff(platform: Platform) -> None:
    directory = Directory(
        platform.database, platform.clock, platform.ids, platform.registrations.permissions
    )
    for key, grants in PROFILES.items():
        await directory.ensure_profile(key, key, (*grants, *UI_GRANTS))
    for user_id, username, name, profile in STAFF:
        await directory.create_user(
            username, display_name=name, profile=profile, password=PASSWORD, user_id=user_id
        )


@contextlib.asynccontextmanager
async def served(platform: Platform) -> AsyncIterator[str]:
    """The platform's application on a real uvicorn server (a free local port, this event
    loop, no lifespan: whoever booted the platform closes it); yields its base URL."""
    port = _free_port()
    with app_for(platform) as app:
        config = uvicorn.Config(
            app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"
        )
        server = uvicorn.Server(config)
        task = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.01)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.should_exit = True
            with contextlib.suppress(asyncio.CancelledError):
                await task


@pytest.fixture
async def site(database_url: str, clock: FixedClock) -> AsyncIterator[Site]:
    settings = Settings(database_url=database_url)
    platform = await Platform.boot(settings, clock=clock, ids=SequentialIdGen(clock), upgrade=False)
    service = service_of(platform)
    await _staff(platform)
    try:
        async with served(platform) as url:
            yield Site(url=url, platform=platform, service=service)
    finally:
        await platform.close()


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    if not Path(CHROMIUM).exists():
        unavailable("Chromium", f"{CHROMIUM} is missing (apt-get install chromium)")
    if not AXE.exists():
        unavailable("axe-core", "node_modules/axe-core is missing (npm ci)")
    async with async_playwright() as pw:
        launched = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield launched
        await launched.close()


async def new_page(browser: Browser, **options: Any) -> tuple[BrowserContext, Page]:
    options.setdefault("locale", "pt-BR")
    context = await browser.new_context(bypass_csp=True, **options)
    return context, await context.new_page()


async def add_reader(platform: Platform) -> str:
    """A user who may read workflows and work on tasks, but not operate or publish."""
    directory = Directory(
        platform.database, platform.clock, platform.ids, platform.registrations.permissions
    )
    await directory.ensure_profile("leitura", "leitura", ("workflow.read", "workflow.tasks"))
    await directory.create_user(
        "leitora", display_name="Leitora", profile="leitura", password=PASSWORD
    )
    return "leitora"


async def login(page: Page, site: Site, username: str) -> None:
    await page.goto(f"{site.url}/cms/login")
    await page.get_by_label("Usuário").fill(username)
    await page.get_by_label("Senha").fill(PASSWORD)
    await page.get_by_role("button", name="Entrar").click()
    await page.wait_for_url("**/cms/workflow/inbox")


async def serious_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations of the current page (needs JS enabled)."""
    await page.add_script_tag(path=str(AXE))
    result: dict[str, Any] = await page.evaluate("async () => await axe.run(document)")
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]]}
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


async def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
