"""Gazette acts and editions: the module's own records and its plain-mode actions.

With the workflow engine installed the act's status is driven only by the flow (through
``DiarioSubject``); the plain-mode moves below then refuse, so there are never two state
machines deciding the same act. Publishing (stamping the edition) is the module's own action
in both modes: the flow triggers it through the ``diario.publish`` handler.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from contracts.errors import Conflict, Forbidden, NotFound, RetryableFailure
from contracts.kernel import Actor, AuditEntry
from contracts.platform import PlatformContext
from contracts.workflow.types import StartRequest, SubjectRef
from modules.diario.config import DiarioConfig, load_config
from modules.diario.domain import ACT_STATUS, ActStatus
from modules.diario.schedule import business_days, edition_day, next_business_day
from modules.diario.tables import acts, editions

SUBJECT_TYPE = "diario.act"
DEFINITION_KEY = "diario.publicacao"
DEFAULT_ISSUER = "Gabinete do Prefeito"


class ActFrozen(Conflict):
    """The act is in an edition already composed: only a retificação may correct it."""

    problem_type = "diario-act-frozen"
    title = "The act is frozen in a composed edition"


class Act(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    title: str
    body: str
    issuer: str
    author_id: str
    status: ActStatus
    instance_id: str | None
    edition_number: int | None
    published_on: date | None
    corrects_id: str | None = None
    approved_at: datetime | None = None
    frozen: bool = False


class Stamp(msgspec.Struct, frozen=True, kw_only=True):
    edition_number: int
    published_on: date


class Runtime:
    """What the module keeps of the booted platform (bound in ``tramita_startup``)."""

    def __init__(self) -> None:
        self._platform: PlatformContext | None = None
        self._config: DiarioConfig | None = None

    def bind(self, platform: PlatformContext | None, config: DiarioConfig | None = None) -> None:
        self._platform = platform
        self._config = config

    @property
    def config(self) -> DiarioConfig:
        if self._config is None:
            self._config = load_config()
        return self._config

    @property
    def platform(self) -> PlatformContext:
        if self._platform is None:
            raise Conflict("the diario module is not started", module="diario")
        return self._platform

    @property
    def acts(self) -> ActStore:
        return ActStore(self.platform, self.config)


class ActStore:
    def __init__(self, platform: PlatformContext, config: DiarioConfig | None = None) -> None:
        self.p = platform
        self.config = config or load_config()

    async def draft(
        self,
        *,
        title: str,
        body: str,
        author_id: str,
        issuer: str = DEFAULT_ISSUER,
        corrects: str | None = None,
    ) -> Act:
        """A new act; ``corrects`` names the published act a retificação corrects."""
        now = self.p.clock.now()
        act_id = str(self.p.ids.new_id())
        async with self.p.database.begin() as conn:
            if corrects is not None:
                original = await _load(conn, corrects)
                if original.edition_status != "composed":
                    raise Conflict(
                        "only an act of a composed edition is corrected by a retificação",
                        act_id=corrects,
                    )
            await conn.execute(
                acts.insert().values(
                    id=act_id,
                    title=title,
                    body=body,
                    issuer=issuer,
                    corrects_id=corrects,
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

    async def revise(
        self, act_id: str, *, actor: Actor, title: str, body: str, issuer: str | None = None
    ) -> Act:
        """Edit an act's text; refused once its edition is composed (:class:`ActFrozen`)."""
        async with self.p.database.begin() as conn:
            row = await _load(conn, act_id, lock=True)
            if row.edition_status == "composed":
                raise ActFrozen(act_id=act_id, edition=row.edition_number)
            if row.status == ActStatus.REJECTED.value:
                raise Conflict("a rejected act is not edited", act_id=act_id)
            await conn.execute(
                acts.update()
                .where(acts.c.id == act_id)
                .values(
                    title=title,
                    body=body,
                    issuer=issuer or row.issuer,
                    updated_at=self.p.clock.now(),
                )
            )
            await self.p.audit.append(
                conn,
                AuditEntry(
                    action="diario.act.revised",
                    object_type=SUBJECT_TYPE,
                    object_id=act_id,
                    actor=actor,
                    after={"title_changed": title != row.title, "body_changed": body != row.body},
                ),
            )
        return await self.get(act_id)

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
        """Schedule the act into the first open regular edition whose cut-off it met
        (created on first use); idempotent per act."""
        now = self.p.clock.now()
        days = business_days(self.p.extras)
        tz = self.p.settings.timezone
        try:
            async with self.p.database.begin() as conn:
                row = await _load(conn, act_id, lock=True)
                if row.edition_id is not None:
                    return Stamp(edition_number=row.edition_number, published_on=row.published_on)
                day = edition_day(days, row.approved_at or now, tz, self.config.cutoff)
                while True:
                    ed = (
                        await conn.execute(
                            sa.select(editions)
                            .where(editions.c.published_on == day, editions.c.extra.is_(False))
                            .with_for_update()
                        )
                    ).first()
                    if ed is None or ed.status == "open":
                        break
                    day = next_business_day(days, day)  # composed early: the next one
                if ed is None:
                    edition_id, number = await self._open_edition(conn, day, now, extra=False)
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
                        after={"edition": number, "published_on": day.isoformat()},
                    ),
                )
        except IntegrityError as exc:
            # Two acts opened the day's edition at once: the loser retries and joins it.
            raise RetryableFailure("edition numbering collided", act_id=act_id) from exc
        return Stamp(edition_number=number, published_on=day)

    async def _open_edition(
        self, conn: Any, day: date, now: datetime, *, extra: bool
    ) -> tuple[str, int]:
        last = (await conn.execute(sa.select(sa.func.max(editions.c.number)))).scalar()
        edition_id, number = str(self.p.ids.new_id()), int(last or 0) + 1
        await conn.execute(
            editions.insert().values(
                id=edition_id,
                number=number,
                published_on=day,
                extra=extra,
                status="open",
                created_at=now,
            )
        )
        return edition_id, number

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
        now = self.p.clock.now()
        values: dict[str, Any] = {"status": target.value, "updated_at": now}
        if target is ActStatus.APPROVED:
            values["approved_at"] = now
        await conn.execute(acts.update().where(acts.c.id == act_id).values(**values))
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
        acts,
        editions.c.number.label("edition_number"),
        editions.c.published_on,
        editions.c.status.label("edition_status"),
    ).select_from(acts.outerjoin(editions, editions.c.id == acts.c.edition_id))


async def _load(conn: Any, act_id: str, *, lock: bool = False) -> Any:
    query = _select().where(acts.c.id == act_id)
    if lock:
        query = query.with_for_update(of=acts)
    row = (await conn.execute(query)).first()
    if row is None:
        raise NotFound("unknown act", act_id=act_id)
    return row


async def act_in(conn: Any, act_id: str) -> Act:
    """The act as read (and locked) inside the caller's unit of work."""
    return _act(await _load(conn, act_id, lock=True))


def _act(row: Any) -> Act:
    return Act(
        id=row.id,
        title=row.title,
        body=row.body,
        issuer=row.issuer,
        author_id=row.author_id,
        status=ActStatus(row.status),
        instance_id=row.instance_id,
        edition_number=row.edition_number,
        published_on=row.published_on,
        corrects_id=row.corrects_id,
        approved_at=row.approved_at,
        frozen=row.edition_status == "composed",
    )
