"""Gazette acts and editions: the module's own records and its plain-mode actions.

With the workflow engine installed the act's status is driven only by the flow (through
``DiarioSubject``); the plain-mode moves below then refuse, so there are never two state
machines deciding the same act. Publishing (stamping the edition) is the module's own action
in both modes: the flow triggers it through the ``diario.publish`` handler.
"""

from __future__ import annotations

from datetime import date, timedelta, timezone
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from contracts.errors import Conflict, Forbidden, NotFound, RetryableFailure
from contracts.kernel import Actor, AuditEntry
from contracts.platform import PlatformContext
from contracts.workflow.types import StartRequest, SubjectRef
from modules.diario.domain import ACT_STATUS, ActStatus
from modules.diario.tables import acts, editions

BRASILIA = timezone(timedelta(hours=-3), "BRT")
SUBJECT_TYPE = "diario.act"
DEFINITION_KEY = "diario.publicacao"


class Act(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    title: str
    author_id: str
    status: ActStatus
    instance_id: str | None
    edition_number: int | None
    published_on: date | None


class Stamp(msgspec.Struct, frozen=True, kw_only=True):
    edition_number: int
    published_on: date


class Runtime:
    """What the module keeps of the booted platform (bound in ``tramita_startup``)."""

    def __init__(self) -> None:
        self._platform: PlatformContext | None = None

    def bind(self, platform: PlatformContext | None) -> None:
        self._platform = platform

    @property
    def platform(self) -> PlatformContext:
        if self._platform is None:
            raise Conflict("the diario module is not started", module="diario")
        return self._platform

    @property
    def acts(self) -> ActStore:
        return ActStore(self.platform)


class ActStore:
    def __init__(self, platform: PlatformContext) -> None:
        self.p = platform

    async def draft(self, *, title: str, body: str, author_id: str) -> Act:
        now = self.p.clock.now()
        act_id = str(self.p.ids.new_id())
        async with self.p.database.begin() as conn:
            await conn.execute(
                acts.insert().values(
                    id=act_id,
                    title=title,
                    body=body,
                    author_id=author_id,
                    status=ACT_STATUS.initial.value,
                    created_at=now,
                    updated_at=now,
                )
            )
            await self._audit(conn, act_id, Actor(id=author_id), None, ActStatus.DRAFT)
        return await self.get(act_id)

    async def get(self, act_id: str) -> Act:
        async with self.p.database.connect() as conn:
            row = await _load(conn, act_id)
        return _act(row)

    async def find(self, act_id: str) -> tuple[Act, str] | None:
        """The act and its body, or ``None`` for an unknown id (the case view's read)."""
        async with self.p.database.connect() as conn:
            row = (await conn.execute(_select().where(acts.c.id == act_id))).first()
        return None if row is None else (_act(row), str(row.body))

    async def submit(self, act_id: str, *, actor: Actor) -> Act:
        """Send a draft to review: starts the flow when installed, else moves the status."""
        act = await self.get(act_id)
        if act.author_id != actor.id:
            raise Forbidden("only the author submits the act", act_id=act_id)
        engine = self.p.workflow
        if engine is None:
            return await self.move(act_id, ActStatus.REVIEW, actor=actor)
        if act.instance_id is not None:
            raise Conflict("the act is already in its workflow", act_id=act_id)
        view = await engine.start(
            StartRequest(
                definition_key=DEFINITION_KEY,
                context={"act_id": act_id},
                subject=SubjectRef(type=SUBJECT_TYPE, id=act_id),
                business_key=act_id,
                actor=actor,
            )
        )
        async with self.p.database.begin() as conn:
            await conn.execute(
                acts.update()
                .where(acts.c.id == act_id, acts.c.instance_id.is_(None))
                .values(instance_id=view.id)
            )
        return await self.get(act_id)

    async def approve(self, act_id: str, *, actor: Actor) -> Act:
        """Plain mode's approval (four eyes: never the author)."""
        act = await self.get(act_id)
        if act.author_id == actor.id:
            raise Forbidden("the author cannot approve the act", act_id=act_id, rule="four_eyes")
        return await self.move(act_id, ActStatus.APPROVED, actor=actor)

    async def reject(self, act_id: str, *, actor: Actor) -> Act:
        return await self.move(act_id, ActStatus.REJECTED, actor=actor)

    async def publish(self, act_id: str, *, actor: Actor) -> Act:
        """Plain mode's publication: stamp the edition, then mark the act published."""
        self._plain_only(act_id)
        act = await self.get(act_id)
        ACT_STATUS.advance(act.status, ActStatus.PUBLISHED)
        await self.stamp(act_id)
        return await self.move(act_id, ActStatus.PUBLISHED, actor=actor)

    def _plain_only(self, act_id: str) -> None:
        if self.p.workflow is not None:
            raise Conflict("the act's status follows its workflow", act_id=act_id)

    async def move(self, act_id: str, target: ActStatus, *, actor: Actor) -> Act:
        self._plain_only(act_id)
        async with self.p.database.begin() as conn:
            row = await _load(conn, act_id)
            current = ActStatus(row.status)
            ACT_STATUS.advance(current, target)
            await self._set(conn, act_id, current, target, actor)
        return await self.get(act_id)

    async def follow(self, act_id: str, target: ActStatus, *, instance_id: str) -> bool:
        """Apply a status the flow reached; a repeated or stale event changes nothing."""
        async with self.p.database.begin() as conn:
            row = await _load(conn, act_id)
            current = ActStatus(row.status)
            if row.instance_id is None:
                await conn.execute(
                    acts.update().where(acts.c.id == act_id).values(instance_id=instance_id)
                )
            if not reachable(current, target):
                return False
            await self._set(conn, act_id, current, target, Actor.system("workflow"))
        return True

    async def stamp(self, act_id: str) -> Stamp:
        """Put the act in today's edition (created on first use); idempotent per act."""
        now = self.p.clock.now()
        today = now.astimezone(BRASILIA).date()
        try:
            async with self.p.database.begin() as conn:
                row = await _load(conn, act_id)
                if row.edition_id is not None:
                    ed = (
                        await conn.execute(
                            sa.select(editions).where(editions.c.id == row.edition_id)
                        )
                    ).one()
                    return Stamp(edition_number=ed.number, published_on=ed.published_on)
                ed = (
                    await conn.execute(sa.select(editions).where(editions.c.published_on == today))
                ).first()
                if ed is None:
                    last = (await conn.execute(sa.select(sa.func.max(editions.c.number)))).scalar()
                    edition_id, number = str(self.p.ids.new_id()), int(last or 0) + 1
                    await conn.execute(
                        editions.insert().values(
                            id=edition_id, number=number, published_on=today, created_at=now
                        )
                    )
                else:
                    edition_id, number = ed.id, ed.number
                await conn.execute(
                    acts.update()
                    .where(acts.c.id == act_id)
                    .values(edition_id=edition_id, published_at=now, updated_at=now)
                )
                await self.p.audit.append(
                    conn,
                    AuditEntry(
                        action="diario.act.stamped",
                        object_type=SUBJECT_TYPE,
                        object_id=act_id,
                        actor=Actor.system("diario"),
                        after={"edition": number, "published_on": today.isoformat()},
                    ),
                )
        except IntegrityError as exc:
            # Two acts opened the day's edition at once: the loser retries and joins it.
            raise RetryableFailure("edition numbering collided", act_id=act_id) from exc
        return Stamp(edition_number=number, published_on=today)

    async def edition(self, number: int) -> list[Act]:
        """The acts an edition groups, in publication order."""
        async with self.p.database.connect() as conn:
            rows = await conn.execute(
                _select()
                .where(editions.c.number == number)
                .order_by(acts.c.published_at, acts.c.id)
            )
            return [_act(r) for r in rows]

    async def _set(
        self, conn: Any, act_id: str, current: ActStatus, target: ActStatus, actor: Actor
    ) -> None:
        await conn.execute(
            acts.update()
            .where(acts.c.id == act_id)
            .values(status=target.value, updated_at=self.p.clock.now())
        )
        await self._audit(conn, act_id, actor, current, target)

    async def _audit(
        self, conn: Any, act_id: str, actor: Actor, before: ActStatus | None, after: ActStatus
    ) -> None:
        await self.p.audit.append(
            conn,
            AuditEntry(
                action="diario.act.status",
                object_type=SUBJECT_TYPE,
                object_id=act_id,
                actor=actor,
                before=None if before is None else {"status": before.value},
                after={"status": after.value},
            ),
        )


def reachable(current: ActStatus, target: ActStatus) -> bool:
    """Whether ``target`` lies ahead of ``current`` (a late event may skip a lost one)."""
    seen, frontier = {current}, [current]
    while frontier:
        for nxt in ACT_STATUS.allowed(frontier.pop()):
            if nxt == target:
                return True
            if nxt not in seen:
                seen.add(nxt)
                frontier.append(nxt)
    return False


def _select() -> Any:
    return sa.select(
        acts, editions.c.number.label("edition_number"), editions.c.published_on
    ).select_from(acts.outerjoin(editions, editions.c.id == acts.c.edition_id))


async def _load(conn: Any, act_id: str) -> Any:
    row = (await conn.execute(_select().where(acts.c.id == act_id))).first()
    if row is None:
        raise NotFound("unknown act", act_id=act_id)
    return row


def _act(row: Any) -> Act:
    return Act(
        id=row.id,
        title=row.title,
        author_id=row.author_id,
        status=ActStatus(row.status),
        instance_id=row.instance_id,
        edition_number=row.edition_number,
        published_on=row.published_on,
    )
