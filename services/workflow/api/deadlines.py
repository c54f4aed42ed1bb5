"""Legal deadlines over HTTP: preview a rule without a case, an instance's counted ones, and
the suspension (sobrestamento) and resumption of a tracked deadline.

Instants are RFC 3339 with the jurisdiction's offset; ``due_on`` is the local due date and
``explanation`` says, in pt-BR, what moved it.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any
from uuid import UUID

import msgspec
from litestar import Controller, Request, get, post
from litestar.connection import ASGIConnection
from litestar.params import FromPath, FromQuery, JSONBody, Parameter
from msgspec import Meta

from contracts.errors import BadRequest, ServiceUnavailable
from core.auth import actor_of, requires
from core.localtime import local_date, to_local
from services.workflow.api.deps import engine_of, platform_of
from services.workflow.runtime.deadline_ports import DeadlineView
from services.workflow.runtime.deadlines import DeadlineService
from services.workflow.runtime.legal_time import CountedDeadline, DeadlinePreview

DEADLINES_KEY = "workflow.deadlines"
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
    service: DeadlineService | None = platform_of(connection).extras.get(DEADLINES_KEY)
    if service is None:
        raise ServiceUnavailable("the deadline service is not wired", port=DEADLINES_KEY)
    return service


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
            rule, filed, calendar_key=calendar, extend=extend
        )


class InstanceDeadlineController(Controller):
    path = "/api/v1/instances/{instance_id:uuid}/deadlines"
    tags = ["deadlines"]
    security = [{"bearer": []}]

    @get("/", guards=[requires("workflow.read")])
    async def counted(
        self, request: Request[Any, Any, Any], instance_id: FromPath[UUID]
    ) -> list[CountedDeadline]:
        """Every legal deadline counted for the instance's timers, oldest first."""
        await engine_of(request).status(str(instance_id))
        return await deadlines_of(request).counted(str(instance_id))

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
