"""Instances: start, read, history, cancel, signal, correlate a message, search, public link."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any
from uuid import UUID

import msgspec
from litestar import Controller, Request, get, post
from litestar.connection import ASGIConnection
from litestar.params import FromPath, FromQuery, JSONBody, Parameter

from contracts.errors import BadRequest, Conflict, FieldError, NotFound, ValidationFailed
from contracts.kernel import Actor
from contracts.workflow.types import HistoryEntry, InstanceView, StartRequest
from core.auth import actor_of, requires
from services.workflow.api.access import access_of, start_tenant, tenant_of, viewer_for
from services.workflow.api.deps import engine_of, platform_of, reads_of
from services.workflow.api.schemas import (
    CalledInstance,
    CancelBody,
    InstanceDetail,
    InstancePage,
    MessageBody,
    PublicLink,
    SignalBody,
    StartBody,
)
from services.workflow.public.links import DEFAULT_LINK_TTL_S, expires_at, sign_link
from services.workflow.reads.search import MAX_PAGE, InstanceQuery

NO_NUL = r"^[^\x00]*$"
"""PostgreSQL text cannot hold NUL: such input is a 400 here, not a database error later."""
Text = Annotated[str | None, Parameter(max_length=200, pattern=NO_NUL)]


class InstanceController(Controller):
    path = "/api/v1/instances"
    tags = ["instances"]
    security = [{"bearer": []}]

    @post("/", guards=[requires("workflow.start")])
    async def start(
        self, request: Request[Any, Any, Any], data: JSONBody[StartBody]
    ) -> InstanceView:
        return await engine_of(request).start(
            StartRequest(
                definition_key=data.definition_key,
                version=data.version,
                context=dict(data.context),
                subject=data.subject,
                business_key=data.business_key,
                actor=actor_of(request),
                tenant=await start_tenant(request),
            )
        )

    @get("/", guards=[requires("workflow.read")])
    async def search(
        self,
        request: Request[Any, Any, Any],
        definition: Text = None,
        status: Annotated[str | None, Parameter(max_length=20, pattern=NO_NUL)] = None,
        subject_type: Text = None,
        subject_id: Text = None,
        protocol: Text = None,
        business_key: Text = None,
        started_from: FromQuery[datetime | None] = None,
        started_to: FromQuery[datetime | None] = None,
        field: Annotated[
            list[str] | None,
            Parameter(description="`key:value` on a context key the definition marks searchable"),
        ] = None,
        before: FromQuery[UUID | None] = None,
        limit: Annotated[int, Parameter(ge=1, le=MAX_PAGE)] = 50,
    ) -> InstancePage:
        """Newest first; ``field`` filters need ``definition`` (its searchable keys)."""
        fields = await _searchable_fields(request, definition, field or [])
        if protocol is not None:  # a NUP typed with or without punctuation; wrong digits: 422
            protocol = engine_of(request).numbering.lookup(protocol)
        items = await reads_of(request).search(
            InstanceQuery(
                definition_key=definition,
                status=status,
                subject_type=subject_type,
                subject_id=subject_id,
                protocol=protocol,
                business_key=business_key,
                started_from=started_from,
                started_to=started_to,
                fields=fields,
                before=None if before is None else str(before),
                limit=limit,
                viewer=await viewer_for(request, actor_of(request).id),
            )
        )
        return InstancePage(items=items, next=items[-1].id if len(items) == limit else None)

    @get("/{instance_id:uuid}", guards=[requires("workflow.read")])
    async def get_instance(
        self, request: Request[Any, Any, Any], instance_id: FromPath[UUID]
    ) -> InstanceDetail:
        """A restricted or secret case's opening is audited before it is returned."""
        await access_of(request).record_opening(str(instance_id), actor_of(request))
        return await _with_call_links(request, await engine_of(request).status(str(instance_id)))

    @get("/{instance_id:uuid}/history", guards=[requires("workflow.read")])
    async def history(
        self, request: Request[Any, Any, Any], instance_id: FromPath[UUID]
    ) -> list[HistoryEntry]:
        await access_of(request).record_opening(str(instance_id), actor_of(request))
        return await engine_of(request).history(str(instance_id))

    @post("/{instance_id:uuid}/cancel", guards=[requires("workflow.cancel")], status_code=200)
    async def cancel(
        self,
        request: Request[Any, Any, Any],
        instance_id: FromPath[UUID],
        data: JSONBody[CancelBody],
    ) -> InstanceView:
        return await engine_of(request).cancel(
            str(instance_id),
            reason=data.reason,
            actor=actor_of(request),
            compensate=data.compensate,
        )

    @post("/{instance_id:uuid}/signals", guards=[requires("workflow.start")], status_code=200)
    async def signal(
        self,
        request: Request[Any, Any, Any],
        instance_id: FromPath[UUID],
        data: JSONBody[SignalBody],
    ) -> InstanceView:
        """Deliver a named message (the waiting node's id) to this instance."""
        return await engine_of(request).signal(
            str(instance_id),
            data.name,
            payload=dict(data.payload),
            actor=actor_of(request),
            outcome=data.outcome,
        )

    @post("/{instance_id:uuid}/public-link", guards=[requires("workflow.read")])
    async def public_link(
        self, request: Request[Any, Any, Any], instance_id: FromPath[UUID]
    ) -> PublicLink:
        """A signed, expiring link to the citizen timeline of this instance (audited)."""
        return await issue_public_link(request, str(instance_id), actor_of(request), None)


async def issue_public_link(
    connection: ASGIConnection[Any, Any, Any, Any],
    instance_id: str,
    actor: Actor,
    reason: str | None,
) -> PublicLink:
    """Sign the citizen's link to the instance's timeline and audit who issued it (the API and
    the instance page both issue links through here); the token itself is never audited."""
    engine = engine_of(connection)
    view = await engine.status(instance_id)
    platform = platform_of(connection)
    token = sign_link(platform.settings.secret_key, platform.clock, view.protocol)
    until = expires_at(platform.clock, DEFAULT_LINK_TTL_S)
    await engine.note(
        view.id,
        action="workflow.instance.public_link_issued",
        actor=actor,
        reason=reason,
        after={"expires_at": until.isoformat()},
    )
    return PublicLink(token=token, path=f"/public/timeline/{token}", expires_at=until)


async def _with_call_links(request: Request[Any, Any, Any], view: InstanceView) -> InstanceDetail:
    """The instance with the parent and children the caller may see (the one visibility rule:
    a parent or child they may not see is not named, not even by id)."""
    reads = reads_of(request)
    viewer = await viewer_for(request, actor_of(request).id)
    parent = view.parent_instance_id
    if parent is not None and await reads.linked_instance(parent, viewer) is None:
        parent = None
    children = await reads.called_instances(view.id, viewer)
    return InstanceDetail(
        **(msgspec.structs.asdict(view) | {"parent_instance_id": parent}),
        children=[msgspec.convert(c, CalledInstance, from_attributes=True) for c in children],
    )


class MessageController(Controller):
    path = "/api/v1/messages"
    tags = ["instances"]
    security = [{"bearer": []}]

    @post("/", guards=[requires("workflow.start")], status_code=200)
    async def correlate(
        self, request: Request[Any, Any, Any], data: JSONBody[MessageBody]
    ) -> InstanceView:
        """Deliver a message to the one open instance with this business key or protocol that
        the caller may see (a hidden case answers as no instance at all)."""
        if (data.business_key is None) == (data.protocol is None):
            raise BadRequest("give exactly one of business_key and protocol")
        protocol = data.protocol
        if protocol is not None:
            protocol = engine_of(request).numbering.lookup(protocol)
        found = await reads_of(request).open_instances_for(
            business_key=data.business_key,
            protocol=protocol,
            viewer=await viewer_for(request, actor_of(request).id),
        )
        if not found:
            raise NotFound("no open instance for this message", message=data.name)
        if len(found) > 1:
            raise Conflict(
                "more than one open instance matches", instance_ids=[i.id for i in found]
            )
        return await engine_of(request).signal(
            found[0].id,
            data.name,
            payload=dict(data.payload),
            actor=actor_of(request),
            outcome=data.outcome,
        )


async def _searchable_fields(
    request: Request[Any, Any, Any], definition: str | None, raw: list[str]
) -> dict[str, str]:
    if not raw:
        return {}
    if definition is None:
        raise ValidationFailed("context field filters need the 'definition' parameter")
    latest = await reads_of(request).version(definition, None, tenant=await tenant_of(request))
    if latest is None:
        raise NotFound("no published version of this workflow", definition_key=definition)
    allowed = set(latest.definition.get("searchable") or ())
    fields: dict[str, str] = {}
    errors: list[FieldError] = []
    for index, item in enumerate(raw):
        key, sep, value = item.partition(":")
        if "\x00" in item:
            errors.append(
                FieldError(
                    path=f"field[{index}]",
                    code="invalid_character",
                    message="A filter value cannot contain a NUL character.",
                )
            )
            continue
        if not sep or key not in allowed:
            errors.append(
                FieldError(
                    path=f"field[{index}]",
                    code="not_searchable",
                    message="Use key:value with a key the definition declares searchable.",
                )
            )
            continue
        fields[key] = value
    if errors:
        raise ValidationFailed("some field filters are not searchable", errors=errors)
    return fields
