"""Demo data for ``tramita demo`` only (never loaded in production): one act, end to end."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from contracts.errors import Conflict, Forbidden
from contracts.kernel import Actor
from contracts.platform import PlatformContext
from contracts.workflow.engine import WorkflowEngine
from contracts.workflow.types import TaskView
from core.identity import Directory
from core.localtime import date_text
from modules.diario.demo_edition import publish_demo_edition
from modules.diario.domain import ActStatus
from modules.diario.records import ActStore
from modules.diario.workflows import APPROVER_ID, AUTHOR_ID, PROFILES, REVIEWER_ID

AUTHOR, REVIEWER, APPROVER = Actor(id=AUTHOR_ID), Actor(id=REVIEWER_ID), Actor(id=APPROVER_ID)
STAFF = (
    (AUTHOR_ID, "diario.autora", "Autora (demo)", "diario.redacao"),
    (REVIEWER_ID, "diario.revisor", "Revisor (demo)", "diario.revisao"),
    (APPROVER_ID, "diario.aprovadora", "Aprovadora (demo)", "diario.revisao"),
)


async def ensure_staff(platform: PlatformContext) -> None:
    """Profiles granting the module's permissions, and the staff users the queues name."""
    directory = Directory(
        platform.database, platform.clock, platform.ids, platform.registrations.permissions
    )
    extra = ("workflow.tasks",) if "workflow.tasks" in platform.registrations.permissions else ()
    for key, grants in PROFILES.items():
        await directory.ensure_profile(key, key, (*grants, *extra))
    for user_id, username, name, profile in STAFF:
        with contextlib.suppress(Conflict):  # created by an earlier demo run
            await directory.create_user(
                username, display_name=name, profile=profile, user_id=user_id
            )


async def wait_for(check: Callable[[], Awaitable[bool]], *, timeout_s: float = 15.0) -> None:
    """Poll until delivery has moved the flow (the engine works after commit, not inline)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not await check():
        if loop.time() > deadline:
            raise TimeoutError("the workflow did not advance; is delivery running?")
        await asyncio.sleep(0.02)


async def open_task(engine: WorkflowEngine, instance_id: str, node_id: str) -> TaskView:
    found: list[TaskView] = []

    async def ready() -> bool:
        found[:] = [
            t
            for t in await engine.tasks(instance_id)
            if t.node_id == node_id and t.status in ("ready", "claimed")
        ]
        return bool(found)

    await wait_for(ready)
    return found[0]


async def run_demo(platform: PlatformContext) -> list[str]:
    store = ActStore(platform)
    act = await store.draft(
        title="Portaria nº 12/2026 — nomeia comissão",
        body="O Prefeito ... resolve ...",
        author_id=AUTHOR_ID,
    )
    engine = platform.workflow
    if engine is None:
        trail = [act.status.value]
        act = await store.submit(act.id, actor=AUTHOR)
        trail.append(act.status.value)
        for step in (store.approve, store.publish):
            act = await step(act.id, actor=APPROVER)
            trail.append(act.status.value)
        return [f"plain mode act: {' -> '.join(trail)}"]
    await ensure_staff(platform)
    act = await store.submit(act.id, actor=AUTHOR)
    assert act.instance_id is not None
    lines = []
    review = await open_task(engine, act.instance_id, "review")
    try:
        await engine.complete(review.id, actor=AUTHOR, outcome="approve", data={})
    except Forbidden:
        lines.append("four eyes: the author was refused as her own reviewer")
    await engine.claim(review.id, actor=REVIEWER)
    await engine.complete(review.id, actor=REVIEWER, outcome="approve", data={})
    approval = await open_task(engine, act.instance_id, "approve")
    await engine.claim(approval.id, actor=APPROVER)
    await engine.complete(approval.id, actor=APPROVER, outcome="approve", data={})

    async def published() -> bool:
        return (await store.get(act.id)).status is ActStatus.PUBLISHED

    await wait_for(published)
    act = await store.get(act.id)
    view = await engine.status(act.instance_id or "")
    steps = " -> ".join(h.to_node for h in await engine.history(view.id) if h.to_node)
    lines.insert(0, f"act {view.protocol}: {view.status}; steps {steps}")
    lines.append(f"published in edition nº {act.edition_number} of {date_text(act.published_on)}")
    lines.extend(await publish_demo_edition(platform, act.edition_number or 0))
    return lines
