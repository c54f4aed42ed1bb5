"""Operators' routes: dead letters (list, show, reprocess, abandon one or many) and an
instance's audit.

The dead letters of a case the caller may not see (``runtime.services.access``) are left out of
the list, and one of them answers like an unknown letter (404), so nobody learns the case exists.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal
from uuid import UUID

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath, FromQuery, JSONBody, Parameter

from contracts.errors import NotFound, ValidationFailed
from contracts.workflow.case import CaseDescription
from contracts.workflow.types import InstanceView
from core.auth import actor_of, requires
from services.workflow.api.access import access_of, viewer_for
from services.workflow.api.deps import engine_of, platform_of, reads_of
from services.workflow.api.operation_runs import accepted, accepted_as_operation, operations_of
from services.workflow.api.schemas import AbandonBody, DeadLetterPage, Reason, RevealBody
from services.workflow.definition.messages import N_
from services.workflow.reads.operations import AuditView, DeadLetterView, read_entries
from services.workflow.reads.search import MAX_PAGE
from services.workflow.runtime.services.case_reading import read_case
from services.workflow.runtime.services.operations import MAX_ITEMS

LetterStatus = Literal["open", "reprocessed", "abandoned", "repaired", "cancelled", "all"]


class AbandonLettersBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Dead letters to give up, with the reason (audited on each case)."""

    letter_ids: Annotated[list[UUID], msgspec.Meta(min_length=1, max_length=MAX_ITEMS)]
    reason: Reason


class LetterResult(msgspec.Struct, frozen=True, kw_only=True):
    """One letter: given up (``ok``), or refused with a fixed ``code`` and the problem type."""

    dead_letter_id: str
    ok: bool
    code: str | None = None
    problem: str | None = None


class AbandonLettersResult(msgspec.Struct, frozen=True, kw_only=True):
    """One entry per distinct letter, in request order."""

    items: list[LetterResult]


async def _visible_letter(request: Request[Any, Any, Any], letter_id: str) -> DeadLetterView:
    """The letter, or the 404 of an unknown one when its case is hidden from the caller."""
    viewer = await viewer_for(request, actor_of(request).id)
    found = await reads_of(request).dead_letter(letter_id, viewer=viewer)
    if found is None:
        raise NotFound(N_("unknown dead letter"), dead_letter_id=letter_id)
    return found


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
            None if status == "all" else status,
            None if before is None else str(before),
            limit,
            viewer=await viewer_for(request, actor_of(request).id),
        )
        return DeadLetterPage(items=items, next=items[-1].id if len(items) == limit else None)

    @get("/{letter_id:uuid}", guards=[requires("workflow.operate")])
    async def show(
        self, request: Request[Any, Any, Any], letter_id: FromPath[UUID]
    ) -> DeadLetterView:
        return await _visible_letter(request, str(letter_id))

    @post("/{letter_id:uuid}/reprocess", guards=[requires("workflow.operate")], status_code=200)
    async def reprocess(
        self, request: Request[Any, Any, Any], letter_id: FromPath[UUID]
    ) -> InstanceView:
        """Back on the same node: same instance, protocol, trail and idempotency key."""
        await _visible_letter(request, str(letter_id))
        return await engine_of(request).reprocess(str(letter_id), actor=actor_of(request))

    @post(
        "/abandon",
        guards=[requires("workflow.operate")],
        status_code=200,
        responses=accepted_as_operation(
            "More letters than the threshold: they are given up in the background as an "
            "operation (follow it at /api/v1/operations/{id})."
        ),
    )
    async def abandon_many(
        self, request: Request[Any, Any, Any], data: JSONBody[AbandonLettersBody]
    ) -> Response[AbandonLettersResult]:
        """Give up several dead letters, each in its own transaction (a refusal never undoes the
        others). Past ``TRAMITA_WF_OPERATION_THRESHOLD`` letters this starts a background
        operation (``dead_letter_abandon``) and answers 202 with it; the same letters sent again
        by the same person while it runs answer that operation. A letter of a case the caller
        may not see is refused exactly like an unknown letter."""
        operations, actor = operations_of(request), actor_of(request)
        viewer = await viewer_for(request, actor.id)
        ids = list(dict.fromkeys(str(i) for i in data.letter_ids))
        if operations.in_background(len(ids)):
            started = await operations.start(
                "dead_letter_abandon", ids, actor=actor, reason=data.reason, viewer=viewer
            )
            return accepted(started)
        items = await operations.abandon_letters_now(
            ids, actor=actor, reason=data.reason, viewer=viewer
        )
        result = AbandonLettersResult(
            items=[
                LetterResult(
                    dead_letter_id=i.item_id,
                    ok=i.outcome == "done",
                    code=i.code,
                    problem=None if i.detail is None else str(i.detail.get("problem")),
                )
                for i in items
            ]
        )
        return Response(result, status_code=200)

    @post("/{letter_id:uuid}/abandon", guards=[requires("workflow.operate")], status_code=200)
    async def abandon(
        self,
        request: Request[Any, Any, Any],
        letter_id: FromPath[UUID],
        data: JSONBody[AbandonBody],
    ) -> InstanceView:
        await _visible_letter(request, str(letter_id))
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
        await access_of(request).record_opening(str(instance_id), actor_of(request))
        await engine_of(request).status(str(instance_id))
        return await reads_of(request).audit_trail(str(instance_id))


class CaseController(Controller):
    path = "/api/v1/instances/{instance_id:uuid}/case"
    tags = ["operations"]
    security = [{"bearer": []}]

    @get("/", guards=[requires("workflow.read")])
    async def case(
        self, request: Request[Any, Any, Any], instance_id: FromPath[UUID]
    ) -> CaseDescription:
        """What the instance's module says about its subject, as the caller may see it; the
        reads the law asks to record (a *denúncia* opened, personal data shown) are audited,
        and so is a restricted or secret case's opening (once there is a description to show)."""
        found = await _case(request, str(instance_id), None)
        await access_of(request).record_opening(str(instance_id), actor_of(request))
        return found

    @post("/reveal", guards=[requires("workflow.read")], status_code=200)
    async def reveal(
        self,
        request: Request[Any, Any, Any],
        instance_id: FromPath[UUID],
        data: JSONBody[RevealBody],
    ) -> CaseDescription:
        """The case with its protected identity revealed: the module's own permission (403
        without it) and a reason, kept in the audit entry (``identity.revealed``)."""
        reason = data.reason.strip()
        if not reason:
            raise ValidationFailed(N_("a reason is required"), field="reason")
        return await _case(request, str(instance_id), reason)

    @get("/reads", guards=[requires("workflow.admin")])
    async def reads(
        self, request: Request[Any, Any, Any], instance_id: FromPath[UUID]
    ) -> list[AuditView]:
        """Who read the case (or its requester's personal data) and when, oldest first."""
        await engine_of(request).status(str(instance_id))
        return read_entries(await reads_of(request).audit_trail(str(instance_id)))


async def _case(
    request: Request[Any, Any, Any], instance_id: str, reveal_reason: str | None
) -> CaseDescription:
    engine = engine_of(request)
    view = await engine.status(instance_id)
    actor = actor_of(request)
    grants = frozenset(await platform_of(request).directory.of(actor.id))
    views = platform_of(request).registrations.case_views
    found = await read_case(engine, views, view, actor, grants, reveal_reason=reveal_reason)
    if found is None:
        raise NotFound(N_("no case description"), instance_id=instance_id)
    return found
