"""Operators' routes: dead letters (list, show, reprocess, abandon) and an instance's audit."""

from __future__ import annotations

from typing import Annotated, Any, Literal
from uuid import UUID

from litestar import Controller, Request, get, post
from litestar.params import FromPath, FromQuery, JSONBody, Parameter

from contracts.errors import NotFound
from contracts.workflow.types import InstanceView
from core.auth import actor_of, requires
from services.workflow.api.deps import engine_of, reads_of
from services.workflow.api.ports import MAX_PAGE, AuditView, DeadLetterView
from services.workflow.api.schemas import AbandonBody, DeadLetterPage

LetterStatus = Literal["open", "reprocessed", "abandoned", "repaired", "cancelled", "all"]


class DeadLetterController(Controller):
    path = "/api/v1/dead-letters"
    tags = ["operations"]
    security = [{"bearer": []}]

    @get("/", guards=[requires("workflow.operate")])
    async def list_letters(
        self,
        request: Request[Any, Any, Any],
        status: FromQuery[LetterStatus] = "open",
        before: FromQuery[UUID | None] = None,
        limit: Annotated[int, Parameter(ge=1, le=MAX_PAGE)] = 50,
    ) -> DeadLetterPage:
        items = await reads_of(request).dead_letters(
            None if status == "all" else status, None if before is None else str(before), limit
        )
        return DeadLetterPage(items=items, next=items[-1].id if len(items) == limit else None)

    @get("/{letter_id:uuid}", guards=[requires("workflow.operate")])
    async def show(
        self, request: Request[Any, Any, Any], letter_id: FromPath[UUID]
    ) -> DeadLetterView:
        found = await reads_of(request).dead_letter(str(letter_id))
        if found is None:
            raise NotFound("unknown dead letter", dead_letter_id=str(letter_id))
        return found

    @post("/{letter_id:uuid}/reprocess", guards=[requires("workflow.operate")], status_code=200)
    async def reprocess(
        self, request: Request[Any, Any, Any], letter_id: FromPath[UUID]
    ) -> InstanceView:
        """Back on the same node: same instance, protocol, trail and idempotency key."""
        return await engine_of(request).reprocess(str(letter_id), actor=actor_of(request))

    @post("/{letter_id:uuid}/abandon", guards=[requires("workflow.operate")], status_code=200)
    async def abandon(
        self,
        request: Request[Any, Any, Any],
        letter_id: FromPath[UUID],
        data: JSONBody[AbandonBody],
    ) -> InstanceView:
        return await engine_of(request).abandon(
            str(letter_id), actor=actor_of(request), reason=data.reason
        )


class AuditController(Controller):
    path = "/api/v1/instances/{instance_id:uuid}/audit"
    tags = ["operations"]
    security = [{"bearer": []}]

    @get("/", guards=[requires("workflow.read")])
    async def trail(
        self, request: Request[Any, Any, Any], instance_id: FromPath[UUID]
    ) -> list[AuditView]:
        """The instance's audit entries and its tasks', oldest first."""
        await engine_of(request).status(str(instance_id))
        return await reads_of(request).audit_trail(str(instance_id))
