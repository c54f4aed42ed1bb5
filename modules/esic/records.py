"""Information requests and ombudsman cases: the module's records and plain-mode moves.

Both kinds share one shape (a legal status, the instance id, a contact for e-mails), so one
``Tracked`` store serves them, configured per kind; the request's own steps (filing, appeals,
complaint) are in :mod:`modules.esic.info_requests`. With the engine installed the status is
moved only by the flow (``follow``, from ``on_transition``); plain moves then refuse.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

import msgspec
import sqlalchemy as sa

from contracts.errors import Conflict, NotFound
from contracts.kernel import Actor, AuditEntry
from contracts.platform import PlatformContext
from contracts.workflow.types import StartRequest, SubjectRef, TransitionEvent
from core.statuses import StatusMachine
from modules.esic.config import appeal_instances
from modules.esic.domain import (
    CASE_STATUS,
    REQUEST_STATUS,
    CaseStatus,
    ManifestationKind,
    RequestStatus,
)
from modules.esic.tables import cases, requests, timeline
from modules.esic.workflows import CASE_NODES, request_nodes


@dataclass(frozen=True)
class Kind:
    subject_type: str
    definition_key: str
    table: sa.Table
    email: sa.Column[Any]
    machine: StatusMachine[Any]
    status: type[StrEnum]
    nodes: Callable[[], Mapping[str, Any]]
    """Node -> legal status (for e-SIC it depends on the configured appeal chain)."""


REQUEST = Kind(
    "esic.request",
    "esic.pedido",
    requests,
    requests.c.requester_email,
    REQUEST_STATUS,
    RequestStatus,
    lambda: request_nodes(appeal_instances()),
)
CASE = Kind(
    "ouvidoria.case",
    "ouvidoria.manifestacao",
    cases,
    cases.c.contact_email,
    CASE_STATUS,
    CaseStatus,
    lambda: CASE_NODES,
)


class Record(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    status: str
    instance_id: str | None
    protocol: str | None


class TimelineEntry(msgspec.Struct, frozen=True, kw_only=True):
    """What the citizen sees: a public label and a date, nothing else."""

    label: str
    at: str


class Appeal(msgspec.Struct, frozen=True, kw_only=True):
    """A citizen's appeal (instance 1 or 2) or complaint (instance 0), with its grounds."""

    instance: int
    text: str
    at: datetime


class Tracked:
    def __init__(self, platform: PlatformContext, kind: Kind) -> None:
        self.p = platform
        self.k = kind

    async def _create(self, values: dict[str, Any], start: dict[str, Any]) -> Record:
        now = self.p.clock.now()
        record_id = str(self.p.ids.new_id())
        status = self.k.machine.initial.value
        async with self.p.database.begin() as conn:
            await conn.execute(
                self.k.table.insert().values(
                    id=record_id, status=status, created_at=now, updated_at=now, **values
                )
            )
            await self._audit(conn, record_id, Actor.system("portal"), None, status)
        engine = self.p.workflow
        if engine is None:
            return await self.get(record_id)
        view = await engine.start(
            StartRequest(
                definition_key=self.k.definition_key,
                context={**start, self._id_key(): record_id},
                subject=SubjectRef(type=self.k.subject_type, id=record_id),
                business_key=record_id,
                actor=Actor.system("portal"),
            )
        )
        async with self.p.database.begin() as conn:
            await conn.execute(
                self.k.table.update()
                .where(self.k.table.c.id == record_id)
                .values(instance_id=view.id, protocol=view.protocol)
            )
        return await self.get(record_id)

    def _id_key(self) -> str:
        return "request_id" if self.k is REQUEST else "case_id"

    async def get(self, record_id: str) -> Record:
        async with self.p.database.connect() as conn:
            row = await _load(conn, self.k.table, record_id)
        return Record(
            id=row.id, status=row.status, instance_id=row.instance_id, protocol=row.protocol
        )

    async def contact(self, record_id: str) -> str | None:
        """The e-mail to notify (``None`` for an anonymous case): personal, never logged."""
        async with self.p.database.connect() as conn:
            row = (
                await conn.execute(sa.select(self.k.email).where(self.k.table.c.id == record_id))
            ).first()
        return None if row is None else row[0]

    async def details(self, record_id: str) -> dict[str, Any] | None:
        """Every column of the record (personal ones included: for staff pages, never logs)."""
        async with self.p.database.connect() as conn:
            row = (
                await conn.execute(sa.select(self.k.table).where(self.k.table.c.id == record_id))
            ).first()
        return None if row is None else dict(row._mapping)

    async def staff_timeline(self, record_id: str) -> list[tuple[datetime, str]]:
        """The public labels with their aware datetimes, oldest first."""
        t = timeline.c
        async with self.p.database.connect() as conn:
            rows = await conn.execute(
                sa.select(t.label, t.at)
                .where(t.subject_type == self.k.subject_type, t.subject_id == record_id)
                .order_by(t.at, t.seq)
            )
            return [(r.at, r.label) for r in rows]

    async def move(self, record_id: str, target: StrEnum, *, actor: Actor) -> Record:
        """A plain-mode move (refused while the flow drives the record)."""
        if self.p.workflow is not None:
            raise Conflict("the status follows the workflow", record_id=record_id)
        async with self.p.database.begin() as conn:
            row = await _load(conn, self.k.table, record_id)
            current = self.k.status(row.status)
            self.k.machine.advance(current, target)
            await self._set(conn, record_id, current.value, target.value, actor)
        return await self.get(record_id)

    async def follow(self, event: TransitionEvent) -> bool:
        """Apply what the flow did: record the public label, move the status forward.

        Delivered at least once and possibly late: a label already recorded, or a status not
        ahead of the current one, changes nothing.
        """
        assert event.subject is not None
        record_id = event.subject.id
        async with self.p.database.begin() as conn:
            row = await _load(conn, self.k.table, record_id)
            if row.instance_id is None:
                await conn.execute(
                    self.k.table.update()
                    .where(self.k.table.c.id == record_id)
                    .values(instance_id=event.instance_id, protocol=event.protocol)
                )
            if event.public_label:
                await self._label(conn, record_id, event)
            target = self.k.nodes().get(event.to_node or "")
            if target is None or not reachable(self.k.machine, self.k.status(row.status), target):
                return False
            await self._set(conn, record_id, row.status, target.value, Actor.system("workflow"))
        return True

    async def _label(self, conn: Any, record_id: str, event: TransitionEvent) -> None:
        where = (timeline.c.subject_type == self.k.subject_type) & (
            timeline.c.subject_id == record_id
        )
        rows = (await conn.execute(sa.select(timeline).where(where))).all()
        if any(r.label == event.public_label and r.at == event.at for r in rows):
            return
        await conn.execute(
            timeline.insert().values(
                subject_type=self.k.subject_type,
                subject_id=record_id,
                seq=len(rows) + 1,
                label=event.public_label,
                at=event.at,
            )
        )

    async def public_timeline(self, protocol: str) -> list[TimelineEntry]:
        """The sanitized timeline behind the protocol-number link: labels and dates only."""
        async with self.p.database.connect() as conn:
            row = (
                await conn.execute(
                    sa.select(self.k.table.c.id).where(self.k.table.c.protocol == protocol)
                )
            ).first()
            if row is None:
                raise NotFound("unknown protocol", protocol=protocol)
            rows = await conn.execute(
                sa.select(timeline.c.label, timeline.c.at)
                .where(
                    timeline.c.subject_type == self.k.subject_type,
                    timeline.c.subject_id == row.id,
                )
                .order_by(timeline.c.at, timeline.c.seq)
            )
            return [TimelineEntry(label=r.label, at=r.at.isoformat()) for r in rows]

    async def _set(self, conn: Any, record_id: str, before: str, after: str, actor: Actor) -> None:
        await conn.execute(
            self.k.table.update()
            .where(self.k.table.c.id == record_id)
            .values(status=after, updated_at=self.p.clock.now())
        )
        await self._audit(conn, record_id, actor, before, after)

    async def _audit(
        self, conn: Any, record_id: str, actor: Actor, before: str | None, after: str
    ) -> None:
        await self.p.audit.append(
            conn,
            AuditEntry(
                action=f"{self.k.subject_type}.status",
                object_type=self.k.subject_type,
                object_id=record_id,
                actor=actor,
                before=None if before is None else {"status": before},
                after={"status": after},
            ),
        )


class Cases(Tracked):
    def __init__(self, platform: PlatformContext) -> None:
        super().__init__(platform, CASE)

    async def receive(
        self,
        *,
        kind: ManifestationKind,
        body: str,
        name: str | None = None,
        email: str | None = None,
    ) -> Record:
        """An ombudsman case; without a name and e-mail it is anonymous and stores none."""
        anonymous = name is None and email is None
        values = {
            "kind": kind.value,
            "body": body,
            "anonymous": anonymous,
            "contact_name": name,
            "contact_email": email,
        }
        return await self._create(values, {"kind": kind.value})


def reachable(machine: StatusMachine[Any], current: StrEnum, target: StrEnum) -> bool:
    """Whether ``target`` lies ahead of ``current`` (a late event may skip a lost one)."""
    seen, frontier = {current}, [current]
    while frontier:
        for nxt in machine.allowed(frontier.pop()):
            if nxt == target:
                return True
            if nxt not in seen:
                seen.add(nxt)
                frontier.append(nxt)
    return False


async def _load(conn: Any, table: sa.Table, record_id: str) -> Any:
    row = (await conn.execute(sa.select(table).where(table.c.id == record_id))).first()
    if row is None:
        raise NotFound("unknown record", record_id=record_id)
    return row
