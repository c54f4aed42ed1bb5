"""Operators' explicit moves of instances: migration between versions (dry run or real) and
repair of one token, both guarded by ``workflow.operate`` and audited by the migrator.

The migrator (with its SQL queries) is among the service's handles, built by the composition
root.
"""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

import msgspec
from litestar import Controller, Request, post
from litestar.connection import ASGIConnection
from litestar.params import FromPath, JSONBody, Parameter
from msgspec import Meta

from contracts.workflow.types import InstanceView
from core.auth import actor_of, requires
from core.numbers import INT32_MAX
from services.workflow.api.access import viewer_for
from services.workflow.api.deps import platform_of
from services.workflow.handles import handles_of
from services.workflow.runtime.kernel.migration_plan import MigrationReport, MigrationRequest
from services.workflow.runtime.services.migration import Migrator

MAX_INSTANCES = 500
NO_NUL = r"^[^\x00]+$"
"""PostgreSQL text cannot hold NUL: refused as bad input (400) rather than failing in SQL."""
NodeId = Annotated[str, Meta(min_length=1, max_length=100, pattern=NO_NUL)]
Number = Annotated[int, Meta(ge=1, le=INT32_MAX)]
RowVersion = Annotated[int, Meta(ge=0, le=INT32_MAX)]
"""Compared with an ``INTEGER`` column: past it PostgreSQL refuses the bind (a 500 before)."""
Reason = Annotated[str, Meta(min_length=1, max_length=2000, pattern=r"^[^\x00]*[^\x00\s][^\x00]*$")]


class MigrationBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Move the named instances; a dry run (the default) changes nothing. ``expected_versions``
    (instance id -> the ``row_version`` a dry run reported) refuses instances that moved since."""

    from_version: Number
    to_version: Number
    instance_ids: Annotated[list[UUID], Meta(min_length=1, max_length=MAX_INSTANCES)]
    mapping: dict[NodeId, NodeId] = {}
    dry_run: bool = True
    expected_versions: dict[UUID, RowVersion] | None = None
    reason: Reason | None = None


class RepairBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    token_id: NodeId
    to_node: NodeId
    reason: Reason
    expected_version: RowVersion | None = None


def migrator_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Migrator:
    return handles_of(platform_of(connection)).migrator


class MigrationController(Controller):
    path = "/api/v1/workflows/{key:str}/migrations"
    tags = ["operations"]
    security = [{"bearer": []}]

    @post("/", guards=[requires("workflow.operate")], status_code=200)
    async def migrate(
        self,
        request: Request[Any, Any, Any],
        key: FromPath[Annotated[str, Parameter(min_length=1, max_length=100, pattern=NO_NUL)]],
        data: JSONBody[MigrationBody],
    ) -> MigrationReport:
        """The per-instance plan (dry run) or result; each instance in its own transaction. An
        instance the caller may not see is reported as ``not_found``, like an unknown id."""
        migrator, actor = migrator_of(request), actor_of(request)
        viewer = await viewer_for(request, actor.id)
        migration = MigrationRequest(
            definition_key=key,
            from_version=data.from_version,
            to_version=data.to_version,
            mapping=dict(data.mapping),
            instance_ids=tuple(str(i) for i in data.instance_ids),
        )
        if data.dry_run:
            return await migrator.plan(migration, viewer=viewer)
        return await migrator.migrate(
            migration,
            actor=actor,
            reason=data.reason,
            expected_versions={str(k): v for k, v in (data.expected_versions or {}).items()},
            viewer=viewer,
        )


class RepairController(Controller):
    path = "/api/v1/instances/{instance_id:uuid}/repair"
    tags = ["operations"]
    security = [{"bearer": []}]

    @post("/", guards=[requires("workflow.operate")], status_code=200)
    async def repair(
        self,
        request: Request[Any, Any, Any],
        instance_id: FromPath[UUID],
        data: JSONBody[RepairBody],
    ) -> InstanceView:
        """Move one token to another node of the same version; the reason goes to the audit."""
        return await migrator_of(request).repair(
            str(instance_id),
            token_id=data.token_id,
            to_node=data.to_node,
            reason=data.reason,
            actor=actor_of(request),
            expected_version=data.expected_version,
        )
