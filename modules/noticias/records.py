"""News items: the module's records, plain-mode moves and the publication action.

With the engine installed the status follows the flow (``follow``); the rejection reason is
read from the instance's context, since transition events carry identifiers only.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
import sqlalchemy as sa

from contracts.errors import Conflict, Forbidden, NotFound, ValidationFailed
from contracts.kernel import Actor, AuditEntry
from contracts.platform import PlatformContext
from contracts.workflow.types import StartRequest, SubjectRef
from modules.noticias.domain import NEWS_STATUS, NewsStatus
from modules.noticias.tables import news

SUBJECT_TYPE = "noticias.news"


class News(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    title: str
    author_id: str
    status: NewsStatus
    publish_at: datetime | None
    published_at: datetime | None
    reject_reason: str | None
    instance_id: str | None


class Runtime:
    def __init__(self) -> None:
        self._platform: PlatformContext | None = None

    def bind(self, platform: PlatformContext | None) -> None:
        self._platform = platform

    @property
    def newsroom(self) -> Newsroom:
        if self._platform is None:
            raise Conflict("the noticias module is not started", module="noticias")
        return Newsroom(self._platform)


class Newsroom:
    def __init__(self, platform: PlatformContext) -> None:
        self.p = platform

    async def draft(self, *, title: str, body: str, author_id: str) -> News:
        now = self.p.clock.now()
        news_id = str(self.p.ids.new_id())
        async with self.p.database.begin() as conn:
            await conn.execute(
                news.insert().values(
                    id=news_id,
                    title=title,
                    body=body,
                    author_id=author_id,
                    status=NEWS_STATUS.initial.value,
                    created_at=now,
                    updated_at=now,
                )
            )
        return await self.get(news_id)

    async def get(self, news_id: str) -> News:
        async with self.p.database.connect() as conn:
            row = await _load(conn, news_id)
        return _news(row)

    async def find(self, news_id: str) -> tuple[News, str] | None:
        """The item and its body, or ``None`` for an unknown id (the case view's read)."""
        async with self.p.database.connect() as conn:
            row = (await conn.execute(sa.select(news).where(news.c.id == news_id))).first()
        return None if row is None else (_news(row), str(row.body))

    async def submit(
        self, news_id: str, *, actor: Actor, publish_at: datetime | None = None
    ) -> News:
        """Send to the editors; ``publish_at`` schedules the publication (default: at once)."""
        item = await self.get(news_id)
        if item.author_id != actor.id:
            raise Forbidden("only the author submits the item", news_id=news_id)
        when = publish_at or self.p.clock.now()
        if when.tzinfo is None:
            raise ValidationFailed("publish_at needs a time zone", news_id=news_id)
        async with self.p.database.begin() as conn:
            await conn.execute(news.update().where(news.c.id == news_id).values(publish_at=when))
        engine = self.p.workflow
        if engine is None:
            return await self.move(news_id, NewsStatus.PENDING, actor=actor)
        view = await engine.start(
            StartRequest(
                definition_key="noticias.aprovacao",
                context={"news_id": news_id, "publish_at": when.isoformat()},
                subject=SubjectRef(type=SUBJECT_TYPE, id=news_id),
                business_key=news_id,
                actor=actor,
            )
        )
        async with self.p.database.begin() as conn:
            await conn.execute(
                news.update().where(news.c.id == news_id).values(instance_id=view.id)
            )
        return await self.get(news_id)

    async def reject(self, news_id: str, *, actor: Actor, reason: str) -> News:
        """Plain mode's rejection: a reason is required."""
        if not reason.strip():
            raise ValidationFailed("a rejection needs a reason", news_id=news_id)
        async with self.p.database.begin() as conn:
            await conn.execute(
                news.update().where(news.c.id == news_id).values(reject_reason=reason)
            )
        return await self.move(news_id, NewsStatus.REJECTED, actor=actor)

    async def publish(self, news_id: str) -> datetime:
        """Stamp the publication time (the module's own action); idempotent."""
        now = self.p.clock.now()
        async with self.p.database.begin() as conn:
            row = await _load(conn, news_id)
            if row.published_at is not None:
                return row.published_at  # type: ignore[no-any-return]
            await conn.execute(news.update().where(news.c.id == news_id).values(published_at=now))
        return now

    async def move(self, news_id: str, target: NewsStatus, *, actor: Actor) -> News:
        if self.p.workflow is not None:
            raise Conflict("the status follows the workflow", news_id=news_id)
        async with self.p.database.begin() as conn:
            row = await _load(conn, news_id)
            NEWS_STATUS.advance(NewsStatus(row.status), target)
            await self._set(conn, news_id, row.status, target, actor)
        if target is NewsStatus.PUBLISHED:
            await self.publish(news_id)
        return await self.get(news_id)

    async def follow(
        self, news_id: str, target: NewsStatus, *, instance_id: str, reason: str | None = None
    ) -> bool:
        async with self.p.database.begin() as conn:
            row = await _load(conn, news_id)
            current = NewsStatus(row.status)
            if current == target or not _ahead(current, target):
                return False
            if reason is not None:
                await conn.execute(
                    news.update().where(news.c.id == news_id).values(reject_reason=reason)
                )
            await self._set(conn, news_id, row.status, target, Actor.system("workflow"))
        return True

    async def _set(
        self, conn: Any, news_id: str, before: str, target: NewsStatus, actor: Actor
    ) -> None:
        await conn.execute(
            news.update()
            .where(news.c.id == news_id)
            .values(status=target.value, updated_at=self.p.clock.now())
        )
        await self.p.audit.append(
            conn,
            AuditEntry(
                action="noticias.news.status",
                object_type=SUBJECT_TYPE,
                object_id=news_id,
                actor=actor,
                before={"status": before},
                after={"status": target.value},
            ),
        )


def _ahead(current: NewsStatus, target: NewsStatus) -> bool:
    seen, frontier = {current}, [current]
    while frontier:
        for nxt in NEWS_STATUS.allowed(frontier.pop()):
            if nxt == target:
                return True
            if nxt not in seen:
                seen.add(nxt)
                frontier.append(nxt)
    return False


def _news(row: Any) -> News:
    return News(
        id=row.id,
        title=row.title,
        author_id=row.author_id,
        status=NewsStatus(row.status),
        publish_at=row.publish_at,
        published_at=row.published_at,
        reject_reason=row.reject_reason,
        instance_id=row.instance_id,
    )


async def _load(conn: Any, news_id: str) -> Any:
    row = (await conn.execute(sa.select(news).where(news.c.id == news_id))).first()
    if row is None:
        raise NotFound("unknown news item", news_id=news_id)
    return row
