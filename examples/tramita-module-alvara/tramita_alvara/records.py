"""Licence requests: the module's records, plain-mode moves and the issuing action.

One source of truth: without the engine the module's own actions move the status through the
guarded machine; with it, submitting starts ``alvara.licenca`` and from then on only the
subject listener (``follow``) moves the status, applying a status only when it lies ahead of
the current one (delivery is at least once and may be late).
"""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

import msgspec
import sqlalchemy as sa

from contracts.errors import Conflict, NotFound, ValidationFailed
from contracts.kernel import Actor, AuditEntry
from contracts.platform import PlatformContext
from contracts.workflow.types import StartRequest, SubjectRef
from tramita_alvara.domain import LICENCE_STATUS, LicenceStatus
from tramita_alvara.tables import licences
from tramita_alvara.workflow import ACTIVITIES, DEFINITION_KEY, SUBJECT_TYPE

LOCAL = ZoneInfo("America/Sao_Paulo")
"""Licence numbers carry the year as people in the municipality see it."""


class Licence(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    business_name: str
    activity: str
    area_m2: int
    applicant_id: str
    status: LicenceStatus
    fee_slip: str | None
    number: str | None
    instance_id: str | None


class Runtime:
    """The booted platform, bound in ``tramita_startup`` (handlers are registered before it)."""

    def __init__(self) -> None:
        self._platform: PlatformContext | None = None

    def bind(self, platform: PlatformContext | None) -> None:
        self._platform = platform

    @property
    def licences(self) -> Licences:
        if self._platform is None:
            raise Conflict("the alvara module is not started", module="alvara")
        return Licences(self._platform)


class Licences:
    def __init__(self, platform: PlatformContext) -> None:
        self.p = platform

    async def request(
        self, *, business_name: str, activity: str, area_m2: int, applicant_id: str
    ) -> Licence:
        """A draft request; the applicant submits it when it is complete."""
        if activity not in ACTIVITIES:
            raise ValidationFailed("unknown activity", activity=activity)
        now = self.p.clock.now()
        licence_id = str(self.p.ids.new_id())
        async with self.p.database.begin() as conn:
            await conn.execute(
                licences.insert().values(
                    id=licence_id,
                    business_name=business_name,
                    activity=activity,
                    area_m2=area_m2,
                    applicant_id=applicant_id,
                    status=LICENCE_STATUS.initial.value,
                    created_at=now,
                    updated_at=now,
                )
            )
        return await self.get(licence_id)

    async def get(self, licence_id: str) -> Licence:
        async with self.p.database.connect() as conn:
            row = await _load(conn, licence_id)
        return Licence(
            id=row.id,
            business_name=row.business_name,
            activity=row.activity,
            area_m2=row.area_m2,
            applicant_id=row.applicant_id,
            status=LicenceStatus(row.status),
            fee_slip=row.fee_slip,
            number=row.number,
            instance_id=row.instance_id,
        )

    async def submit(self, licence_id: str, *, actor: Actor) -> Licence:
        """Plain mode: straight to analysis. With the engine: start the flow (ids only in its
        context; the business name stays in the module's table)."""
        item = await self.get(licence_id)
        engine = self.p.workflow
        if engine is None:
            return await self.move(licence_id, LicenceStatus.UNDER_REVIEW, actor=actor)
        if item.instance_id is not None:
            raise Conflict("the request was already submitted", licence_id=licence_id)
        view = await engine.start(
            StartRequest(
                definition_key=DEFINITION_KEY,
                context={
                    "licence_id": licence_id,
                    "activity": item.activity,
                    "area_m2": item.area_m2,
                },
                subject=SubjectRef(type=SUBJECT_TYPE, id=licence_id),
                business_key=licence_id,
                actor=actor,
            )
        )
        async with self.p.database.begin() as conn:
            await conn.execute(
                licences.update().where(licences.c.id == licence_id).values(instance_id=view.id)
            )
        return await self.get(licence_id)

    async def issue(self, licence_id: str, *, fee_slip: str | None, key: str) -> str:
        """Give the licence its number (``ALV-<year>-<seq>``); idempotent per licence.

        ``key`` is the step's idempotency key, stored with the number: a redelivered step finds
        the number already there and returns it. Two licences issued at the same moment may
        compute the same sequence; the unique number refuses the second, whose step retries.
        """
        now = self.p.clock.now()
        async with self.p.database.begin() as conn:
            row = await _load(conn, licence_id)
            if row.number is not None:
                return str(row.number)
            year = now.astimezone(LOCAL).year
            prefix = f"ALV-{year}-"
            issued = (
                await conn.execute(
                    sa.select(sa.func.count())
                    .select_from(licences)
                    .where(licences.c.number.like(prefix + "%"))
                )
            ).scalar_one()
            number = f"{prefix}{issued + 1:05d}"
            await conn.execute(
                licences.update()
                .where(licences.c.id == licence_id)
                .values(number=number, fee_slip=fee_slip, issued_by_key=key, updated_at=now)
            )
        return number

    async def move(self, licence_id: str, target: LicenceStatus, *, actor: Actor) -> Licence:
        """A plain-mode move (refused with the engine installed: the flow decides)."""
        if self.p.workflow is not None:
            raise Conflict("the status follows the workflow", licence_id=licence_id)
        async with self.p.database.begin() as conn:
            row = await _load(conn, licence_id)
            LICENCE_STATUS.advance(LicenceStatus(row.status), target)
            await self._set(conn, licence_id, row.status, target, actor)
        if target is LicenceStatus.ISSUED:
            await self.issue(licence_id, fee_slip=None, key=f"plain:{licence_id}")
        return await self.get(licence_id)

    async def follow(self, licence_id: str, target: LicenceStatus) -> bool:
        """Apply the status the flow reached, unless it is a repeat or a stale event."""
        async with self.p.database.begin() as conn:
            row = await _load(conn, licence_id)
            current = LicenceStatus(row.status)
            if current == target or not _ahead(current, target):
                return False
            await self._set(conn, licence_id, row.status, target, Actor.system("workflow"))
        return True

    async def _set(
        self, conn: Any, licence_id: str, before: str, target: LicenceStatus, actor: Actor
    ) -> None:
        await conn.execute(
            licences.update()
            .where(licences.c.id == licence_id)
            .values(status=target.value, updated_at=self.p.clock.now())
        )
        await self.p.audit.append(
            conn,
            AuditEntry(
                action="alvara.licence.status",
                object_type=SUBJECT_TYPE,
                object_id=licence_id,
                actor=actor,
                before={"status": before},
                after={"status": target.value},
            ),
        )


def _ahead(current: LicenceStatus, target: LicenceStatus) -> bool:
    seen, frontier = {current}, [current]
    while frontier:
        for nxt in LICENCE_STATUS.allowed(frontier.pop()):
            if nxt == target:
                return True
            if nxt not in seen:
                seen.add(nxt)
                frontier.append(nxt)
    return False


async def _load(conn: Any, licence_id: str) -> Any:
    row = (await conn.execute(sa.select(licences).where(licences.c.id == licence_id))).first()
    if row is None:
        raise NotFound("unknown licence request", licence_id=licence_id)
    return row
