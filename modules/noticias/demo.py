"""Demo data for ``tramita demo`` only (never loaded in production): one news item."""

from __future__ import annotations

import asyncio
import contextlib

from contracts.errors import Conflict
from contracts.kernel import Actor
from contracts.platform import PlatformContext
from core.identity import Directory
from core.localtime import datetime_text
from modules.noticias.domain import NewsStatus
from modules.noticias.records import Newsroom
from modules.noticias.workflows import EDITOR_ID, PROFILES, WRITER_ID

WRITER, EDITOR = Actor(id=WRITER_ID), Actor(id=EDITOR_ID)


async def ensure_staff(platform: PlatformContext) -> None:
    directory = Directory(
        platform.database, platform.clock, platform.ids, platform.registrations.permissions
    )
    extra = ("workflow.tasks",) if "workflow.tasks" in platform.registrations.permissions else ()
    for key, grants in PROFILES.items():
        await directory.ensure_profile(key, key, (*grants, *extra))
    for user_id, username, profile in (
        (WRITER_ID, "noticias.reporter", "noticias.redacao"),
        (EDITOR_ID, "noticias.editora", "noticias.editoria"),
    ):
        with contextlib.suppress(Conflict):  # created by an earlier demo run
            await directory.create_user(
                username, display_name=f"{username} (demo)", profile=profile, user_id=user_id
            )


async def run_demo(platform: PlatformContext, *, timeout_s: float = 15.0) -> list[str]:
    room = Newsroom(platform)
    item = await room.draft(title="Vacinação no sábado", body="...", author_id=WRITER_ID)
    engine = platform.workflow
    if engine is None:
        trail = [item.status.value]
        for target in (NewsStatus.PENDING, NewsStatus.PUBLISHED):
            actor = WRITER if target is NewsStatus.PENDING else EDITOR
            item = await room.move(item.id, target, actor=actor)
            trail.append(item.status.value)
        return [f"plain mode news item: {' -> '.join(trail)}"]
    await ensure_staff(platform)
    item = await room.submit(item.id, actor=WRITER, publish_at=platform.clock.now())
    assert item.instance_id is not None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        tasks = [t for t in await engine.tasks(item.instance_id) if t.status == "ready"]
        if tasks:
            break
        if loop.time() > deadline:
            raise TimeoutError("the workflow did not advance; is delivery running?")
        await asyncio.sleep(0.02)
    await engine.claim(tasks[0].id, actor=EDITOR)
    await engine.complete(tasks[0].id, actor=EDITOR, outcome="approve", data={})
    while (await room.get(item.id)).status is not NewsStatus.PUBLISHED:
        if loop.time() > deadline:
            raise TimeoutError("the scheduled publication did not fire; is the tick running?")
        await asyncio.sleep(0.02)
    item = await room.get(item.id)
    view = await engine.status(item.instance_id or "")
    zone = platform.settings.timezone
    return [
        f"news item {view.protocol}: {view.status}; scheduled for "
        f"{datetime_text(item.publish_at, zone, seconds=True)}, published at "
        f"{datetime_text(item.published_at, zone, seconds=True)} ({zone})"
    ]
