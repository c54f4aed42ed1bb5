"""Notícias end to end on the engine: editorial approval, rejection, scheduled publication."""

from __future__ import annotations

from datetime import timedelta

import pytest

from contracts.errors import Forbidden
from contracts.kernel import Actor
from core.app import Platform
from core.clock import FixedClock
from modules.noticias.demo import EDITOR, WRITER, ensure_staff
from modules.noticias.domain import NewsStatus
from modules.noticias.records import News, Newsroom
from services.workflow.bootstrap import WorkflowService


async def submitted(
    booted: Platform, service: WorkflowService, clock: FixedClock, hours: int = 0
) -> News:
    await ensure_staff(booted)
    room = Newsroom(booted)
    item = await room.draft(title="Vacinação", body="...", author_id=WRITER.id)
    item = await room.submit(item.id, actor=WRITER, publish_at=clock.now() + timedelta(hours=hours))
    await service.delivery.drain()
    return await room.get(item.id)


async def edit(
    service: WorkflowService, item: News, actor: Actor, outcome: str, data: dict[str, object]
) -> None:
    (task,) = await service.engine.tasks(item.instance_id or "")
    await service.engine.claim(task.id, actor=actor)
    await service.engine.complete(task.id, actor=actor, outcome=outcome, data=data)
    await service.delivery.drain()


async def test_approved_news_is_published_at_the_scheduled_time(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    item = await submitted(booted, service, clock, hours=5)
    assert item.status is NewsStatus.PENDING
    await edit(service, item, EDITOR, "approve", {})
    room = Newsroom(booted)
    assert (await room.get(item.id)).status is NewsStatus.SCHEDULED
    clock.advance(timedelta(hours=4, minutes=59))
    assert await service.engine.tick() == 0
    clock.advance(timedelta(minutes=1))
    assert await service.engine.tick() == 1
    await service.delivery.drain()
    item = await room.get(item.id)
    assert item.status is NewsStatus.PUBLISHED and item.published_at == clock.now()


async def test_rejected_news_keeps_the_editors_reason(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    item = await submitted(booted, service, clock)
    await edit(service, item, EDITOR, "reject", {"reject_reason": "falta fonte"})
    item = await Newsroom(booted).get(item.id)
    assert (item.status, item.reject_reason) == (NewsStatus.REJECTED, "falta fonte")


async def test_writer_cannot_approve_her_own_news(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    item = await submitted(booted, service, clock)
    with pytest.raises(Forbidden):
        await edit(service, item, WRITER, "approve", {})
