"""Starting an instance inside a unit of work the caller commits: a start by a person or a
module (``Engine.start``), or a child that a call activity starts in its parent's transaction."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, tzinfo

from contracts.errors import NotFound
from contracts.kernel import AuditEntry, IdGen
from contracts.workflow.types import StartRequest
from services.workflow.numbering import TenantNumbering
from services.workflow.runtime.kernel.events import Started
from services.workflow.runtime.kernel.naming import protocol_year
from services.workflow.runtime.kernel.state import initial_state
from services.workflow.runtime.ports import InstanceRecord, UnitOfWork, VersionRecord
from services.workflow.runtime.services.access import store_default_level
from services.workflow.runtime.services.applying import ApplyIn
from services.workflow.runtime.services.publishing import ModelCompiler, owned_by

Latest = Callable[[UnitOfWork, str], Awaitable[VersionRecord | None]]


class Starter:
    def __init__(
        self,
        *,
        ids: IdGen,
        compiler: ModelCompiler,
        latest: Latest,
        apply_in: ApplyIn,
        tenant: str,
        zone: tzinfo,
        numbering: TenantNumbering,
    ) -> None:
        self._ids = ids
        self._compiler = compiler
        self._latest = latest
        self._apply_in = apply_in
        self._tenant = tenant
        self._zone = zone
        self._numbering = numbering

    async def start_in(
        self,
        uow: UnitOfWork,
        request: StartRequest,
        now: datetime,
        *,
        instance_id: str | None = None,
        parent_instance_id: str | None = None,
        embedded_in: str | None = None,
        catches: tuple[str, ...] = (),
    ) -> InstanceRecord:
        """Resolve the version (``request.version``, else the newest published one), draw the
        protocol number, store the started instance and its audit entry; nothing commits.
        ``embedded_in``: a version id whose embedded sub-process ``request.definition_key`` the
        child runs; ``catches``: the error codes the child's enclosing scopes catch."""
        if embedded_in is not None:
            version = await uow.versions.get(embedded_in)
        elif request.version is None:
            version = await self._latest(uow, request.definition_key)
        else:
            version = await uow.versions.number(request.definition_key, request.version)
        tenant = request.tenant or self._tenant
        # Another tenant's own definition does not exist for this case's tenant.
        if version is None or not owned_by(version, tenant):
            raise NotFound(
                "no published version of this workflow",
                definition_key=request.definition_key,
                version=request.version,
            )
        model = self._compiler.for_version(version, request.definition_key)
        defn = model.definition
        year = protocol_year(now, self._zone)
        # Drawn in this unit of work: a start that rolls back gives its number back. A tenant
        # with a unit of its own draws from its own series; every other tenant from the
        # deployment's (``numbering.tenants``: a protocol number names one case across them).
        owner, numbering = self._numbering.of(tenant)
        series = numbering.series(defn.protocol_prefix)
        number = await uow.instances.next_protocol_number(series, year, tenant=owner)
        actor_id = request.actor.id if request.actor.kind == "user" else None
        record = InstanceRecord(
            id=instance_id or str(self._ids.new_id()),
            tenant=tenant,
            version_id=version.id,
            definition_key=defn.key,
            definition_version=version.version,
            protocol=numbering.format(prefix=defn.protocol_prefix, year=year, sequence=number),
            status="created",
            current_nodes=[],
            state={},
            context={},
            subject_type=request.subject.type if request.subject else None,
            subject_id=request.subject.id if request.subject else None,
            business_key=request.business_key,
            author_id=actor_id,
            due_at=None,
            started_at=now,
            updated_at=now,
            ended_at=None,
            row_version=0,
            parent_instance_id=parent_instance_id,
        )
        event = Started(at=now, input=dict(request.context), actor=actor_id, catches=catches)
        applied = await self._apply_in(
            uow, record, model, initial_state(), event, actor=request.actor, now=now, new=True
        )
        record = applied.record
        await store_default_level(uow, record.id, defn.access, now)
        after: dict[str, object] = {
            "definition": defn.key,
            "version": version.version,
            "protocol": record.protocol,
            "status": record.status,
        }
        if parent_instance_id is not None:
            after["parent"] = parent_instance_id
        await uow.audit.append(
            AuditEntry(
                action="workflow.instance.started",
                object_type="workflow_instance",
                object_id=record.id,
                actor=request.actor,
                after=after,
                correlation_id=record.id,
            )
        )
        return record
