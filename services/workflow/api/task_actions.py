"""The task inbox (every filter, keyset pages) and the actions beyond claim/complete: release,
forward to a person or a queue, and bulk claim/reassign/abandon with a result per task.

Each action is one ``TaskService`` call (its own unit of work, authorised by queue membership
and separation of duties, audited) with the caller as actor and the request's
``Idempotency-Key`` as the action's key; the HTTP layer stores and replays the answer too.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, ClassVar, Literal
from uuid import UUID

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath, FromQuery, JSONBody, Parameter, QueryParameter
from msgspec import Meta

from contracts.errors import BadRequest, FieldError, Forbidden
from contracts.workflow.types import TaskStatus, TaskView
from core.auth import actor_of, requires
from services.workflow.api.access import viewer_for
from services.workflow.api.deps import platform_of
from services.workflow.api.human_deps import idempotency_key_of, inbox_of, scope_of, tasks_of
from services.workflow.api.operation_runs import (
    NO_NUL,
    ActionBody,
    Target,
    accepted,
    accepted_as_operation,
)
from services.workflow.handles import handles_of
from services.workflow.reads.search import MAX_PAGE
from services.workflow.runtime.ports.human import SUPERVISOR_PERMISSION, BulkItem
from services.workflow.runtime.services.inbox import InboxPage, InboxQuery, SortKey
from services.workflow.runtime.services.units import SUPERVISE_PERMISSION

CURSOR = r"^[A-Za-z0-9_-]+$"
"""A cursor is unpadded base64url; one that decodes to nothing this server issued is 422."""
Text = Annotated[str | None, Parameter(max_length=100, pattern=NO_NUL)]
Priority = Annotated[int | None, Parameter(ge=-(2**31) + 1, le=2**31 - 1)]
MAX_BULK = 100


class ForwardBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Exactly one target: a person (the task becomes theirs) or a queue (it is ready there)."""

    __exactly_one_of__: ClassVar[tuple[str, ...]] = ("to_user", "to_queue")

    to_user: Target | None = None
    to_queue: Target | None = None


TaskIds = Annotated[list[UUID], Meta(min_length=1, max_length=MAX_BULK)]


class BulkClaim(ActionBody, frozen=True, tag="claim"):
    task_ids: TaskIds


class BulkAbandon(ActionBody, frozen=True, tag="abandon"):
    task_ids: TaskIds


class BulkReassign(ActionBody, frozen=True, tag="reassign"):
    """Only a reassignment takes a target, and exactly one (a person or a queue)."""

    __exactly_one_of__: ClassVar[tuple[str, ...]] = ("to_user", "to_queue")

    task_ids: TaskIds
    to_user: Target | None = None
    to_queue: Target | None = None


BulkBody = BulkClaim | BulkAbandon | BulkReassign


class BulkResult(msgspec.Struct, frozen=True, kw_only=True):
    """One entry per distinct task, in request order; ``ok`` false carries the problem."""

    items: list[BulkItem]


def _operation_kind(data: BulkBody) -> str:
    """The operation that does ``data`` in the background: a reassignment to a queue is a
    forward, to a person an assignment (the kinds the pages start too)."""
    if isinstance(data, BulkReassign):
        return "bulk_forward" if data.to_queue is not None else "bulk_assign"
    return "bulk_claim" if isinstance(data, BulkClaim) else "bulk_abandon"


def _operation_params(data: BulkBody) -> dict[str, Any]:
    if isinstance(data, BulkReassign):
        return {"to_queue": data.to_queue, "to_user": data.to_user}
    return {"to_queue": None, "to_user": None}


def _utc(name: str, value: datetime | None) -> datetime | None:
    if value is None:
        return None
    if value.tzinfo is None:
        raise BadRequest(
            "dates need a time zone",
            errors=[FieldError(path=name, code="naive_datetime", message="Add a UTC offset.")],
        )
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise BadRequest(
            "date out of range",
            errors=[FieldError(path=name, code="out_of_range", message="Use a real date.")],
        ) from None


def _one_target(to_user: str | None, to_queue: str | None) -> None:
    if (to_user is None) == (to_queue is None):
        raise BadRequest("give exactly one of to_user and to_queue")


class TaskInboxController(Controller):
    path = "/api/v1/tasks"
    tags = ["tasks"]
    security = [{"bearer": []}]

    @get("/", guards=[requires("workflow.tasks")])
    async def inbox(
        self,
        request: Request[Any, Any, Any],
        queue: Text = None,
        assignee: Annotated[
            str | None,
            Parameter(max_length=100, pattern=NO_NUL, description="a user id, or `me`"),
        ] = None,
        unassigned: FromQuery[bool] = False,
        status: Annotated[
            list[TaskStatus] | None, Parameter(description="default: ready and claimed")
        ] = None,
        name: Text = None,
        instance_id: FromQuery[UUID | None] = None,
        priority_min: Priority = None,
        priority_max: Priority = None,
        due_from: FromQuery[datetime | None] = None,
        due_to: FromQuery[datetime | None] = None,
        created_from: FromQuery[datetime | None] = None,
        created_to: FromQuery[datetime | None] = None,
        reach: Annotated[
            Literal["visible", "all", "team"],
            QueryParameter(
                name="scope",
                description=(
                    "`visible`: one's own queues and tasks; `all` (every queue) needs "
                    "`workflow.admin`; `team`: every queue one oversees — all of them for "
                    "`workflow.admin`, the queues of one's units for a unit supervisor "
                    "(`workflow.supervise`)"
                ),
            ),
        ] = "visible",
        unit: Annotated[
            str | None,
            Parameter(
                max_length=100,
                pattern=NO_NUL,
                description="only the queues of this unit (one the caller oversees, else 404)",
            ),
        ] = None,
        sort: FromQuery[SortKey] = "due_at",
        limit: Annotated[int, Parameter(ge=1, le=MAX_PAGE)] = 50,
        cursor: Annotated[str | None, Parameter(max_length=1000, pattern=CURSOR)] = None,
    ) -> InboxPage:
        """The caller's inbox (their queues' tasks and theirs), newest page by ``cursor``."""
        actor = actor_of(request)
        if reach == "all":
            granted = await platform_of(request).permissions.of(actor.id)
            if SUPERVISOR_PERMISSION not in granted:
                raise Forbidden(
                    "listing every queue needs the supervisor permission",
                    permission=SUPERVISOR_PERMISSION,
                )
        in_view: frozenset[str] | None = None
        team = reach == "team" or unit is not None
        if team:
            # As the inbox page does: a unit supervisor sees the queues of their units, an
            # administrator every queue (or one unit's); a unit outside one's view is 404.
            oversees = await scope_of(request, actor.id)
            if not oversees.supervisor:
                raise Forbidden(
                    "overseeing queues needs a unit to supervise or the supervisor permission",
                    permission=SUPERVISE_PERMISSION,
                )
            in_view = oversees.queues(unit)
        query = InboxQuery(
            queue=queue,
            assignee=actor.id if assignee == "me" else assignee,
            unassigned=unassigned,
            status=tuple(dict.fromkeys(status)) if status else ("ready", "claimed"),
            name=name or None,
            instance_id=None if instance_id is None else str(instance_id),
            priority_min=priority_min,
            priority_max=priority_max,
            due_from=_utc("due_from", due_from),
            due_to=_utc("due_to", due_to),
            created_from=_utc("created_from", created_from),
            created_to=_utc("created_to", created_to),
            visible_to=actor.id if reach == "visible" and not team else None,
            queues=None if in_view is None else tuple(sorted(in_view)),
            sort=sort,
            limit=limit,
            cursor=cursor or None,
            seen_by=await viewer_for(request, actor.id),
        )
        return await inbox_of(request).page(query)

    @post("/{task_id:uuid}/release", guards=[requires("workflow.tasks")], status_code=200)
    async def release(self, request: Request[Any, Any, Any], task_id: FromPath[UUID]) -> TaskView:
        """Give a claimed task back to its queue (another holder's needs a supervisor)."""
        return await tasks_of(request).release(
            str(task_id), actor=actor_of(request), idempotency_key=idempotency_key_of(request)
        )

    @post("/{task_id:uuid}/forward", guards=[requires("workflow.tasks")], status_code=200)
    async def forward(
        self,
        request: Request[Any, Any, Any],
        task_id: FromPath[UUID],
        data: JSONBody[ForwardBody],
    ) -> TaskView:
        _one_target(data.to_user, data.to_queue)
        return await tasks_of(request).forward(
            str(task_id),
            actor=actor_of(request),
            to_user=data.to_user,
            to_queue=data.to_queue,
            idempotency_key=idempotency_key_of(request),
        )

    @post(
        "/bulk",
        guards=[requires("workflow.tasks")],
        status_code=200,
        responses=accepted_as_operation(
            "More tasks than the threshold: the action runs in the background as an "
            "operation (follow it at /api/v1/operations/{id})."
        ),
    )
    async def bulk(
        self, request: Request[Any, Any, Any], data: JSONBody[BulkBody]
    ) -> Response[BulkResult]:
        """Each task in its own transaction: one refusal never undoes the others. Past the
        threshold (``TRAMITA_WF_OPERATION_THRESHOLD``) the same action starts a background
        operation instead and answers 202 with it, like the inbox page."""
        tasks, actor, key = tasks_of(request), actor_of(request), idempotency_key_of(request)
        viewer = await viewer_for(request, actor.id)  # a hidden case's task: an unknown task
        ids = list(dict.fromkeys(str(i) for i in data.task_ids))
        if isinstance(data, BulkReassign):
            _one_target(data.to_user, data.to_queue)
        operations = handles_of(platform_of(request)).operations
        if operations.in_background(len(ids)):
            started = await operations.start(
                _operation_kind(data),
                ids,
                actor=actor,
                params=_operation_params(data),
                viewer=viewer,
            )
            return accepted(started)
        if isinstance(data, BulkReassign):
            items = await tasks.bulk_reassign(
                ids,
                actor=actor,
                to_user=data.to_user,
                to_queue=data.to_queue,
                idempotency_key=key,
                viewer=viewer,
            )
        elif isinstance(data, BulkClaim):
            items = await tasks.bulk_claim(ids, actor=actor, idempotency_key=key, viewer=viewer)
        else:
            items = await tasks.bulk_abandon(ids, actor=actor, idempotency_key=key, viewer=viewer)
        return Response(BulkResult(items=items), status_code=200)
