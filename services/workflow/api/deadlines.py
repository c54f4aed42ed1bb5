"""Legal deadlines over HTTP: preview a rule without a case, and an instance's counted ones.

Instants are RFC 3339 with the jurisdiction's offset; ``due_on`` is the local due date and
``explanation`` says, in pt-BR, what moved it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any
from uuid import UUID

from litestar import Controller, Request, get
from litestar.connection import ASGIConnection
from litestar.params import FromPath, FromQuery, Parameter

from contracts.errors import BadRequest, ServiceUnavailable
from core.auth import requires
from services.workflow.api.deps import engine_of, platform_of
from services.workflow.runtime.deadlines import DeadlineService
from services.workflow.runtime.legal_time import CountedDeadline, DeadlinePreview

DEADLINES_KEY = "workflow.deadlines"


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
