"""Legal deadlines over HTTP: preview a rule without a case, an instance's counted ones, and
the extension (prorrogação), suspension (sobrestamento) and resumption of a tracked deadline.

Instants are RFC 3339 with the jurisdiction's offset; ``due_on`` is the local due date and
``explanation`` says, in pt-BR, what moved it. The deadline in force of each timer also
carries its state now (``tracked``) and what changed it since it was counted (``changes``:
extensions with their justification, suspensions with their legal basis, resumptions — never
a suspension's internal reason).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Literal
from uuid import UUID

import msgspec
from litestar import Controller, Request, get, post
from litestar.connection import ASGIConnection
from litestar.params import FromPath, FromQuery, JSONBody, Parameter
from msgspec import Meta

from contracts.errors import BadRequest
from core.auth import actor_of, requires
from core.localtime import local_date, to_local
from services.workflow.api.access import access_of, tenant_of
from services.workflow.api.deps import engine_of, platform_of
from services.workflow.calendar import Extension, Suspension
from services.workflow.handles import handles_of
from services.workflow.runtime.ports.deadlines import DeadlineView
from services.workflow.runtime.services.deadline_service import DeadlineService
from services.workflow.runtime.services.legal_time import CountedDeadline, DeadlinePreview

DEADLINE_NAME = r"^[A-Za-z0-9_.-]{1,64}$"

Reason = Annotated[str, Meta(min_length=1, max_length=2000, pattern=r"^[^\x00]*$")]
LegalBasis = Annotated[str, Meta(min_length=1, max_length=300, pattern=r"^[^\x00]*$")]


class SuspendBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    reason: Reason
    """Why the clock stops; kept in the audit trail only."""
    legal_basis: LegalBasis
    """The law or decree that allows the suspension; the citizen reads it."""


class DeadlineState(msgspec.Struct, frozen=True, kw_only=True):
    """A tracked deadline after a change: RFC 3339 with the local offset, the local due date."""

    instance_id: str
    name: str
    status: str
    due_at: datetime | None
    due_on: date | None
    calendar_key: str
    calendar_version: int
    extensions_used: int
    remaining_units: int
    overdue: bool
    legal_basis: str | None
    """The legal basis of the suspension in force (``None`` while running)."""


class ExtendBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    justification: Reason
    """Why the deadline is extended; the requester is told it (LAI, art. 11, § 2º)."""


class DeadlineChange(msgspec.Struct, frozen=True, kw_only=True):
    """One change to the deadline in force, at ``at`` (RFC 3339, local offset)."""

    kind: Literal["extended", "suspended", "resumed"]
    at: datetime
    days: int | None = None
    """Extension days (``extended``)."""
    justification: str | None = None
    legal_basis: str | None = None
    """The suspension's legal basis (``suspended``)."""


class ExplainedDeadline(CountedDeadline, frozen=True, kw_only=True):
    """A counted deadline; the last one counted for its timer (the one in force) also has its
    state now and the changes since it was counted."""

    tracked: DeadlineState | None = None
    changes: list[DeadlineChange] = []


def _changes(view: DeadlineView, zone_name: str) -> list[DeadlineChange]:
    out: list[DeadlineChange] = []
    for event in view.events:
        at = to_local(event.at, zone_name)
        if isinstance(event, Extension):
            out.append(
                DeadlineChange(
                    kind="extended", at=at, days=event.days, justification=event.justification
                )
            )
        elif isinstance(event, Suspension):
            out.append(DeadlineChange(kind="suspended", at=at, legal_basis=event.legal_basis))
        else:
            out.append(DeadlineChange(kind="resumed", at=at))
    return out


def explained(
    counted: list[CountedDeadline], tracked: list[DeadlineView], zone_name: str
) -> list[ExplainedDeadline]:
    by_name = {view.name: view for view in tracked}
    last_of = {c.timer: n for n, c in enumerate(counted)}
    out = []
    for n, c in enumerate(counted):
        fields = msgspec.structs.asdict(c)
        view = by_name.get(c.timer) if last_of[c.timer] == n else None
        if view is not None:
            fields["tracked"] = deadline_state(view, zone_name)
            fields["changes"] = _changes(view, zone_name)
        out.append(ExplainedDeadline(**fields))
    return out


def deadline_state(view: DeadlineView, zone_name: str) -> DeadlineState:
    basis = None
    if view.status == "suspended":
        bases = [getattr(event, "legal_basis", None) for event in view.events]
        basis = next((b for b in reversed(bases) if b), None)
    return DeadlineState(
        instance_id=view.instance_id,
        name=view.name,
        status=view.status,
        due_at=None if view.due_at is None else to_local(view.due_at, zone_name),
        due_on=None if view.due_at is None else local_date(view.due_at, zone_name),
        calendar_key=view.calendar_key,
        calendar_version=view.calendar_version,
        extensions_used=view.extensions_used,
        remaining_units=view.remaining_units,
        overdue=view.overdue,
        legal_basis=basis,
    )


def deadlines_of(connection: ASGIConnection[Any, Any, Any, Any]) -> DeadlineService:
    return handles_of(platform_of(connection)).deadlines


class DeadlineController(Controller):
    path = "/api/v1/deadlines"
    tags = ["deadlines"]
    security = [{"bearer": []}]

    @get("/preview", guards=[requires("workflow.read")])
    async def preview(
        self,
        request: Request[Any, Any, Any],
        rule: Annotated[str, Parameter(min_length=1, max_length=100)],
        filed: FromQuery[datetime],
        calendar: Annotated[str | None, Parameter(min_length=1, max_length=100)] = None,
        extend: FromQuery[bool] = False,
    ) -> list[DeadlinePreview]:
        """The received day, due date and explanation of a request filed at ``filed``."""
        if filed.tzinfo is None:
            raise BadRequest("filed needs a UTC offset", field="filed")
        return await deadlines_of(request).preview(
            rule, filed, calendar_key=calendar, extend=extend, tenant=await tenant_of(request)
        )


class InstanceDeadlineController(Controller):
    path = "/api/v1/instances/{instance_id:uuid}/deadlines"
    tags = ["deadlines"]
    security = [{"bearer": []}]

    @get("/", guards=[requires("workflow.read")])
    async def counted(
        self, request: Request[Any, Any, Any], instance_id: FromPath[UUID]
    ) -> list[ExplainedDeadline]:
        """Every legal deadline counted for the instance's timers, oldest first, explained;
        the one in force of each timer with its state and changes since."""
        await access_of(request).record_opening(str(instance_id), actor_of(request))
        await engine_of(request).status(str(instance_id))
        service = deadlines_of(request)
        counted = await service.counted(str(instance_id))
        tracked = await service.show(str(instance_id)) if counted else []
        return explained(counted, tracked, _zone(request))

    @post("/{name:str}/extend", guards=[requires("workflow.operate")], status_code=200)
    async def extend(
        self,
        request: Request[Any, Any, Any],
        instance_id: FromPath[UUID],
        name: Annotated[str, Parameter(pattern=DEADLINE_NAME)],
        data: JSONBody[ExtendBody],
    ) -> DeadlineState:
        """Prorrogação: a legal deadline's extension as its rule allows (e-SIC: once, 10 days
        from the deadline in force; Ouvidoria: once, 30), with its justification; beyond the
        rule 422 (``deadline-extension-refused``)."""
        view = await deadlines_of(request).extend(
            str(instance_id), name, data.justification, actor_of(request)
        )
        return deadline_state(view, _zone(request))

    @post("/{name:str}/suspend", guards=[requires("workflow.operate")], status_code=200)
    async def suspend(
        self,
        request: Request[Any, Any, Any],
        instance_id: FromPath[UUID],
        name: Annotated[str, Parameter(pattern=DEADLINE_NAME)],
        data: JSONBody[SuspendBody],
    ) -> DeadlineState:
        """Sobrestamento: stop the clock, with a reason (audit only) and its legal basis."""
        view = await deadlines_of(request).suspend(
            str(instance_id), name, data.reason, actor_of(request), legal_basis=data.legal_basis
        )
        return deadline_state(view, _zone(request))

    @post("/{name:str}/resume", guards=[requires("workflow.operate")], status_code=200)
    async def resume(
        self,
        request: Request[Any, Any, Any],
        instance_id: FromPath[UUID],
        name: Annotated[str, Parameter(pattern=DEADLINE_NAME)],
    ) -> DeadlineState:
        """Restart the clock: the days left count again from today (suspended days paid back)."""
        view = await deadlines_of(request).resume(str(instance_id), name, actor_of(request))
        return deadline_state(view, _zone(request))


def _zone(request: Request[Any, Any, Any]) -> str:
    zone_name: str = platform_of(request).settings.timezone
    return zone_name
