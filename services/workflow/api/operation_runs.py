"""Long operations (batch jobs) over the API: ``/api/v1/operations``.

An operation is seen (and cancelled) by the person who started it and by operators
(``workflow.operate`` or ``workflow.admin``); to anyone else it does not exist (404, as for an
unknown id), so an id never reveals whose work it is. The routes need one of the permissions
that can start an operation (``workflow.tasks`` for a bulk action, ``workflow.operate`` for a
migration): ``requires_any``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any
from uuid import UUID

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from litestar.openapi import ResponseSpec
from litestar.params import FromPath, JSONBody

from contracts.errors import Forbidden, NotFound
from core.auth import actor_of, authenticate, requires
from services.workflow.api.access import viewer_for
from services.workflow.api.deps import platform_of
from services.workflow.api.schemas import AbandonBody
from services.workflow.handles import handles_of
from services.workflow.runtime.ports.operations import Operation, OperationItem
from services.workflow.runtime.services.operations import MAX_ITEMS, MAX_REASON, OperationService

OPERATORS = ("workflow.operate", "workflow.admin")
STARTERS = ("workflow.tasks", "workflow.operate", "workflow.admin")
"""Whoever may start an operation may look for one (and sees their own)."""

Guard = Any


def operations_of(connection: ASGIConnection[Any, Any, Any, Any]) -> OperationService:
    return handles_of(platform_of(connection)).operations


async def holds_any(
    connection: ASGIConnection[Any, Any, Any, Any], user_id: str, permissions: tuple[str, ...]
) -> bool:
    directory = platform_of(connection).directory
    for permission in permissions:
        if await directory.has(user_id, permission):
            return True
    return False


def requires_any(*permissions: str) -> Guard:
    """A bearer-token guard: authenticated and holding one of ``permissions`` (the first is the
    one ``core.auth.permission_of`` reports)."""

    async def guard(
        connection: ASGIConnection[Any, Any, Any, Any], _handler: BaseRouteHandler
    ) -> None:
        user = await authenticate(connection)
        if not await holds_any(connection, user.id, permissions):
            raise Forbidden("the user's profile lacks a permission", permission=permissions[0])

    guard.permission = permissions[0]  # type: ignore[attr-defined]
    guard.permissions = permissions  # type: ignore[attr-defined]
    guard.__name__ = "requires_any_" + "_".join(p.replace(".", "_") for p in permissions)
    return guard


async def visible_operation(
    connection: ASGIConnection[Any, Any, Any, Any], operation_id: str, user_id: str
) -> Operation:
    """The operation when ``user_id`` may see it; ``NotFound`` otherwise, exactly as for an
    id that names nothing."""
    operation = await operations_of(connection).get(operation_id)
    if operation.started_by != user_id and not await holds_any(connection, user_id, OPERATORS):
        raise NotFound("unknown operation", operation_id=operation_id)
    return operation


NO_NUL = r"^[^\x00]*$"
"""PostgreSQL text cannot hold NUL: refused as bad input (400) rather than failing in SQL."""
Target = Annotated[str, msgspec.Meta(min_length=1, max_length=100, pattern=NO_NUL)]


TaskIds = Annotated[list[UUID], msgspec.Meta(min_length=1, max_length=MAX_ITEMS)]
Reason = Annotated[str, msgspec.Meta(max_length=MAX_REASON, pattern=NO_NUL)]


class ActionBody(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="action"
):
    """A bulk action's body, told apart by its ``action`` tag (``claim``, ``forward``…)."""


def accepted_as_operation(description: str) -> dict[int, ResponseSpec]:
    """The 202 answer of a route that runs past the threshold as a background operation."""
    return {
        202: ResponseSpec(
            data_container=OperationView, description=description, generate_examples=False
        )
    }


def accepted(started: Operation) -> Response[Any]:
    """202 with the operation just started (follow it at ``/api/v1/operations/{id}``)."""
    return Response(view_of(started), status_code=202)


class BackgroundClaim(ActionBody, frozen=True, tag="claim"):
    task_ids: TaskIds
    reason: Reason | None = None


class BackgroundForward(ActionBody, frozen=True, tag="forward"):
    """Each task into ``to_queue``."""

    task_ids: TaskIds
    to_queue: Target
    reason: Reason | None = None


class BackgroundAssign(ActionBody, frozen=True, tag="assign"):
    """Each task to the person ``to_user``."""

    task_ids: TaskIds
    to_user: Target
    reason: Reason | None = None


BulkOperationBody = BackgroundClaim | BackgroundForward | BackgroundAssign


class RefusalView(msgspec.Struct, frozen=True, kw_only=True):
    item_id: str
    code: str | None
    detail: dict[str, Any] | None = None


class OperationView(msgspec.Struct, frozen=True, kw_only=True):
    """An operation's progress: ``done + refused`` of ``total`` handled; ``refusals`` says why
    each refused item was refused (a fixed ``code``)."""

    id: str
    kind: str
    status: str
    started_by: str
    reason: str | None
    total: int
    done: int
    refused: int
    remaining: int
    percent: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    cancelled_by: str | None
    cancel_reason: str | None
    error: str | None
    refusals: list[RefusalView] = []


def view_of(operation: Operation, refused: list[OperationItem] | None = None) -> OperationView:
    return OperationView(
        id=operation.id,
        kind=operation.kind,
        status=operation.status,
        started_by=operation.started_by,
        reason=operation.reason,
        total=operation.total,
        done=operation.done,
        refused=operation.refused,
        remaining=operation.total - operation.handled,
        percent=operation.percent,
        created_at=operation.created_at,
        started_at=operation.started_at,
        finished_at=operation.finished_at,
        cancelled_by=operation.cancelled_by,
        cancel_reason=operation.cancel_reason,
        error=operation.error,
        refusals=[
            RefusalView(item_id=i.item_id, code=i.code, detail=i.detail) for i in refused or []
        ],
    )


class OperationController(Controller):
    path = "/api/v1/operations"
    tags = ["operations"]
    security = [{"bearer": []}]
    guards = [requires_any(*STARTERS)]

    @get("/")
    async def recent(self, request: Request[Any, Any, Any]) -> list[OperationView]:
        """The newest operations: all of them for operators, one's own for anyone else."""
        me = actor_of(request).id
        mine = None if await holds_any(request, me, OPERATORS) else me
        return [view_of(o) for o in await operations_of(request).recent(started_by=mine)]

    @post("/bulk", guards=[requires("workflow.tasks")], status_code=202)
    async def bulk(
        self, request: Request[Any, Any, Any], data: JSONBody[BulkOperationBody]
    ) -> OperationView:
        """Start a bulk task action as a background operation (each task its own call, as the
        caller, refusals recorded with their codes) and answer 202 with it; follow it at
        ``GET /api/v1/operations/{id}``. The same action on the same tasks by the same person,
        sent again while its operation is queued or running, answers that operation."""
        to_queue = data.to_queue if isinstance(data, BackgroundForward) else None
        to_user = data.to_user if isinstance(data, BackgroundAssign) else None
        actor = actor_of(request)
        started = await operations_of(request).start(
            f"bulk_{data.__struct_config__.tag}",
            [str(t) for t in data.task_ids],
            actor=actor,
            reason=data.reason,
            params={"to_queue": to_queue, "to_user": to_user},
            viewer=await viewer_for(request, actor.id),  # a hidden case's task: unknown
        )
        return view_of(started)

    @get("/{operation_id:uuid}")
    async def show(
        self, request: Request[Any, Any, Any], operation_id: FromPath[UUID]
    ) -> OperationView:
        """Status, counters and the refused items with their reason codes."""
        operation = await visible_operation(request, str(operation_id), actor_of(request).id)
        refused = await operations_of(request).items(operation.id, refused_only=True)
        return view_of(operation, refused)

    @post("/{operation_id:uuid}/cancel", status_code=200)
    async def cancel(
        self,
        request: Request[Any, Any, Any],
        operation_id: FromPath[UUID],
        data: JSONBody[AbandonBody],
    ) -> OperationView:
        """Stop before the next item (409 when it is already over); the reason is audited."""
        actor = actor_of(request)
        await visible_operation(request, str(operation_id), actor.id)
        return view_of(
            await operations_of(request).cancel(str(operation_id), actor=actor, reason=data.reason)
        )
