"""Explicit version migration of chosen in-flight instances, and operator repair of one token.

An instance pins the version it was born with; the only way off it is :meth:`Migrator.migrate`
on instances an operator names, with a node-to-node mapping the dry run (:meth:`Migrator.plan`)
checked first. Each instance migrates in its own unit of work (lock, optimistic version,
``Migrated`` event through ``decide()`` with the target model, history, audit) so one blocked
instance never holds a batch back and a crash leaves every instance on exactly one version.
The planning functions are pure, so the dry run and the real run decide the same way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass

import msgspec

from contracts.errors import (
    FieldError,
    NotFound,
    TramitaError,
    ValidationFailed,
)
from contracts.kernel import Actor, AuditEntry
from contracts.workflow.types import InstanceView
from services.workflow.definition import CompiledModel
from services.workflow.definition.messages import N_
from services.workflow.runtime.kernel.events import Migrated, TokenMove
from services.workflow.runtime.kernel.migration_plan import (
    Blocker,
    InstancePlan,
    MigrationReport,
    MigrationRequest,
    TokenPlan,
    mapping_errors,
    plan_instance,
)
from services.workflow.runtime.ports import UnitOfWork, VersionRecord
from services.workflow.runtime.ports.access import Viewer
from services.workflow.runtime.services.access import can_see
from services.workflow.runtime.services.applier import state_from_json
from services.workflow.runtime.services.engine import Engine
from services.workflow.runtime.services.publishing import owned_by
from services.workflow.runtime.services.token_repair import repair

BeforeCommit = Callable[[UnitOfWork, InstancePlan], Awaitable[None]]
"""Called with a migrated instance's outcome inside its transaction, just before the commit."""


@dataclass(frozen=True)
class Prepared:
    """A migration's two versions and their compiled models, checked once per run."""

    source: VersionRecord
    target: VersionRecord
    source_model: CompiledModel
    model: CompiledModel
    errors: tuple[FieldError, ...] = ()


class Migrator:
    """Runs plans against the database: one unit of work per instance, never implicitly."""

    def __init__(self, engine: Engine, uow_factory: Callable[[], UnitOfWork]) -> None:
        self._engine = engine
        # A migration writes the same rows (state, history, tasks, timers, outbox) as any other
        # event, through ``Engine.apply_in``, in units of work of the engine's kind.
        self._uow = uow_factory

    async def _versions(
        self, request: MigrationRequest, tenant: str | None = None
    ) -> tuple[VersionRecord, VersionRecord]:
        if request.from_version == request.to_version:
            raise ValidationFailed(
                "source and target versions are the same",
                definition_key=request.definition_key,
                version=request.to_version,
            )
        if not request.instance_ids:
            raise ValidationFailed(
                "a migration needs explicitly chosen instances",
                definition_key=request.definition_key,
            )
        async with self._uow() as uow:
            a = await uow.versions.number(request.definition_key, request.from_version)
            b = await uow.versions.number(request.definition_key, request.to_version)
        for number, found in ((request.from_version, a), (request.to_version, b)):
            if found is None or not owned_by(found, tenant):
                raise NotFound(
                    "unknown version", definition_key=request.definition_key, version=number
                )
        assert a is not None and b is not None
        return a, b

    async def candidates(
        self, definition_key: str, version: int, *, viewer: Viewer | None = None
    ) -> list[str]:
        """Ids of the unfinished instances on a version (for an operator to choose from); with
        ``viewer``, only the cases that person may see (``runtime.services.access``)."""
        seen = None if viewer is None else (viewer, self._engine.clock.now())
        async with self._uow() as uow:
            found = await uow.versions.number(definition_key, version)
            if found is None or not owned_by(found, None if viewer is None else viewer.tenant):
                raise NotFound(
                    N_("unknown version"), definition_key=definition_key, version=version
                )
            return await uow.instances.in_flight_on(found.id, seen=seen)

    async def plan(
        self, request: MigrationRequest, *, viewer: Viewer | None = None
    ) -> MigrationReport:
        """The dry run: what would happen to each chosen instance, and what blocks it. With
        ``viewer``, a case hidden from them is reported exactly as an unknown id
        (``not_found``), in the real run too."""
        return await self._run(request, dry_run=True, actor=None, reason=None, viewer=viewer)

    async def migrate(
        self,
        request: MigrationRequest,
        *,
        actor: Actor,
        reason: str | None = None,
        expected_versions: Mapping[str, int] | None = None,
        progress: Callable[[InstancePlan], None] | None = None,
        viewer: Viewer | None = None,
    ) -> MigrationReport:
        """Migrate each chosen instance in its own transaction. ``expected_versions`` (the
        ``row_version`` the dry run saw) makes an instance that moved since then fail with
        ``concurrent_modification`` instead of migrating from a state nobody reviewed."""
        return await self._run(
            request,
            dry_run=False,
            actor=actor,
            reason=reason,
            expected=expected_versions or {},
            progress=progress,
            viewer=viewer,
        )

    async def _run(
        self,
        request: MigrationRequest,
        *,
        dry_run: bool,
        actor: Actor | None,
        reason: str | None,
        expected: Mapping[str, int] | None = None,
        progress: Callable[[InstancePlan], None] | None = None,
        viewer: Viewer | None = None,
    ) -> MigrationReport:
        prepared = await self.prepare(request, dry_run=dry_run, viewer=viewer)
        va, vb, a, b = prepared.source, prepared.target, prepared.source_model, prepared.model
        report = MigrationReport(
            definition_key=request.definition_key,
            from_version=va.version,
            to_version=vb.version,
            dry_run=dry_run,
            mapping_errors=prepared.errors,
        )
        outcomes = []
        for instance_id in dict.fromkeys(request.instance_ids):
            try:
                outcome = await self._one(
                    instance_id,
                    request,
                    va,
                    vb,
                    a,
                    b,
                    dry_run,
                    actor,
                    reason,
                    (expected or {}).get(instance_id),
                    viewer=viewer,
                )
            except TramitaError as exc:
                outcome = InstancePlan(
                    instance_id=instance_id, result="failed", error=exc.problem_type
                )
            outcomes.append(outcome)
            if progress is not None:
                progress(outcome)
        if not dry_run and any(o.result == "migrated" for o in outcomes):
            self._engine.wakeup()
        return msgspec.structs.replace(report, instances=tuple(outcomes))

    async def prepare(
        self, request: MigrationRequest, *, dry_run: bool = False, viewer: Viewer | None = None
    ) -> Prepared:
        """Both versions and their models, checked once for a whole run; a real run refuses a
        mapping with errors. Another tenant's definition does not exist for ``viewer``."""
        va, vb = await self._versions(request, None if viewer is None else viewer.tenant)
        a, b = self._engine.compiler.for_version(va), self._engine.compiler.for_version(vb)
        errors = tuple(mapping_errors(a, b, request.mapping))
        if errors and not dry_run:
            raise ValidationFailed(
                "the mapping has errors; run a dry run to see them",
                errors=errors,
                definition_key=request.definition_key,
            )
        return Prepared(source=va, target=vb, source_model=a, model=b, errors=errors)

    async def migrate_item(
        self,
        prepared: Prepared,
        request: MigrationRequest,
        instance_id: str,
        *,
        actor: Actor,
        reason: str | None,
        expected: int | None,
        before_commit: BeforeCommit,
        viewer: Viewer | None = None,
    ) -> InstancePlan:
        """Migrate one instance of a background operation; ``before_commit`` writes the
        operation's record of it in the same transaction (raising there undoes the migration),
        so an instance is migrated and counted together or not at all."""
        return await self._one(
            instance_id,
            request,
            prepared.source,
            prepared.target,
            prepared.source_model,
            prepared.model,
            False,
            actor,
            reason,
            expected,
            before_commit,
            viewer,
        )

    async def _one(
        self,
        instance_id: str,
        request: MigrationRequest,
        va: VersionRecord,
        vb: VersionRecord,
        a: CompiledModel,
        b: CompiledModel,
        dry_run: bool,
        actor: Actor | None,
        reason: str | None,
        expected: int | None,
        before_commit: BeforeCommit | None = None,
        viewer: Viewer | None = None,
    ) -> InstancePlan:
        now = self._engine.clock.now()
        async with self._uow() as uow:
            record = await (uow.instances.get if dry_run else uow.instances.lock)(instance_id)
            hidden = viewer is not None and not await can_see(uow, instance_id, viewer, now)
            if hidden:
                record = None  # the same answer as an id that names nothing
            if record is None:
                return InstancePlan(instance_id=instance_id, blockers=(Blocker(code="not_found"),))
            state = state_from_json(record.state)
            plans: tuple[TokenPlan, ...] = ()
            blockers: tuple[Blocker, ...] = ()
            if record.version_id != va.id:  # (its tokens may sit on nodes the source lacks)
                blockers = (Blocker(code="not_on_source_version"),)
            else:
                plans, blockers = plan_instance(a, b, state, request.mapping)
            if expected is not None and record.row_version != expected:
                blockers += (Blocker(code="changed_since_dry_run"),)
            plan = InstancePlan(
                instance_id=record.id,
                protocol=record.protocol,
                row_version=record.row_version,
                status=record.status,
                tokens=plans,
                blockers=blockers,
                result="blocked" if blockers else "would_migrate",
            )
            if dry_run or blockers:
                return plan
            assert actor is not None
            moves = tuple(
                TokenMove(
                    token_id=p.token_id, from_node=p.from_node, to_node=p.to_node, action=p.action
                )
                for p in plans
                if p.to_node is not None and p.action != "blocked"
            )
            event = Migrated(
                at=now,
                from_version_id=va.id,
                to_version_id=vb.id,
                from_version=va.version,
                to_version=vb.version,
                mapping=dict(request.mapping),
                moves=moves,
                actor=actor.id,
            )
            for move in moves:
                if move.action == "reenter":
                    await uow.steps.cancel_open(record.id, move.token_id)
            pinned = msgspec.structs.replace(
                record, version_id=vb.id, definition_version=vb.version
            )
            applied = await self._engine.apply_in(
                uow, pinned, b, state, event, actor=actor, now=now
            )
            updated = applied.record
            await uow.instances.repin(record.id, version_id=vb.id, definition_version=vb.version)
            await uow.audit.append(
                AuditEntry(
                    action="workflow.instance.migrated",
                    object_type="workflow_instance",
                    object_id=record.id,
                    actor=actor,
                    reason=reason,
                    correlation_id=record.id,
                    before={
                        "version": va.version,
                        "status": record.status,
                        "nodes": record.current_nodes,
                    },
                    after={
                        "version": vb.version,
                        "status": updated.status,
                        "nodes": updated.current_nodes,
                        "mapping": dict(request.mapping),
                        "reentered": [m.token_id for m in moves if m.action == "reenter"],
                    },
                )
            )
            done = msgspec.structs.replace(
                plan, result="migrated", status=updated.status, row_version=updated.row_version
            )
            if before_commit is not None:
                await before_commit(uow, done)
            await uow.commit()
        return done

    async def repair(
        self,
        instance_id: str,
        *,
        token_id: str,
        to_node: str,
        reason: str,
        actor: Actor,
        expected_version: int | None = None,
    ) -> InstanceView:
        """Move one token to another node of the same version (see :func:`.token_repair.repair`)."""
        return await repair(
            self._engine,
            self._uow,
            _open_dead_letters,
            instance_id,
            token_id=token_id,
            to_node=to_node,
            reason=reason,
            actor=actor,
            expected_version=expected_version,
        )


def summary(plans: Iterable[InstancePlan]) -> dict[str, int]:
    """Counts per result, for the CLI and logs (identifiers only)."""
    out: dict[str, int] = {}
    for p in plans:
        out[p.result] = out.get(p.result, 0) + 1
    return out


async def _open_dead_letters(uow: UnitOfWork, instance_id: str, token_id: str) -> list[str]:
    return await uow.dead_letters.open_of(instance_id, token_id)
