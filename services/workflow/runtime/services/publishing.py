"""Publishing definitions as immutable versions, and the per-version compiled-model cache.

A definition is parsed, validated and compiled against what is registered *before* anything is
written: one that fails never becomes a version. Publishing content equal to the latest version
is a no-op that returns it; anything else becomes version N+1. Instances pin the version they
were born with, so publishing moves nothing in flight.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from contracts.errors import ConcurrentModification, Conflict, NotFound
from contracts.kernel import Actor, AuditEntry
from services.workflow.definition import (
    CompiledModel,
    ExpressionCompiler,
    KnownNames,
    TableCompiler,
    canonical_json,
    checksum,
    compile_definition,
    parse_definition,
)
from services.workflow.definition.messages import N_
from services.workflow.runtime.ports import UnitOfWork, VersionRecord


class ModelCompiler:
    """Compiles definitions against the frozen registrations; caches one model per version."""

    def __init__(
        self,
        known: KnownNames,
        expressions: ExpressionCompiler,
        tables: TableCompiler | None = None,
    ) -> None:
        self.known = known
        self._expressions = expressions
        self._tables = tables
        self._cache: dict[str, CompiledModel] = {}

    def compile(
        self, data: bytes | str | Mapping[str, Any], *, stored: bool = False
    ) -> CompiledModel:
        """A definition to publish (every check), or with ``stored`` a published version."""
        return compile_definition(
            parse_definition(data), self.known, self._expressions, self._tables, stored=stored
        )

    def for_version(self, version: VersionRecord, key: str | None = None) -> CompiledModel:
        """The version's model, or with ``key`` (an instance's ``definition_key``) the model
        of its embedded sub-process with that key, which the instance runs."""
        model = self._cache.get(version.id)
        if model is None:
            model = self._cache[version.id] = self.compile(version.schema, stored=True)
        return model if key is None else model.scope(key)


def owned_by(version: VersionRecord, tenant: str | None) -> bool:
    """Whether a person or case acting for ``tenant`` may see and run ``version``: the
    deployment's definitions are every tenant's, a tenant's own are its alone; ``None`` (a
    platform administrator acting for every tenant, an operator's command) sees them all."""
    return tenant is None or version.tenant is None or version.tenant == tenant


def _not_theirs(key: str, owner: str | None) -> Conflict:
    """Publishing a version of a definition someone else owns (the key names it)."""
    if owner is None:
        return Conflict(
            N_(
                "this workflow is the deployment's, shared by every tenant: only the "
                "deployment's own tenant publishes its versions"
            ),
            code="definition_shared",
            definition_key=key,
        )
    return Conflict(
        N_("another tenant's workflow has this key: choose another key"),
        code="definition_key_taken",
        definition_key=key,
    )


class Publisher:
    def __init__(
        self,
        uow_factory: Callable[[], UnitOfWork],
        compiler: ModelCompiler,
        *,
        tenant: str = "default",
    ) -> None:
        self._uow = uow_factory
        self._compiler = compiler
        self._tenant = tenant
        """The deployment's own tenant: what it publishes is shared by every tenant."""

    def owner(self, tenant: str | None) -> str | None:
        """Who owns what a person acting for ``tenant`` publishes: that tenant, or ``None``
        (the deployment, shared) for the deployment's own tenant and for every tenant at once
        (a platform administrator's ``*``, an operator's command without ``--for``)."""
        return None if tenant is None or tenant == self._tenant else tenant

    async def publish(
        self, data: bytes | str | Mapping[str, Any], *, actor: Actor, tenant: str | None = None
    ) -> tuple[VersionRecord, bool]:
        """Publish for ``tenant`` (the one the publisher acts for, see ``owner``); returns the
        version and whether it is new. A new version of a definition another owner has is
        refused (``Conflict``), before anything is written."""
        model = self._compiler.compile(data)
        defn = model.definition
        digest = checksum(defn)
        schema = canonical_json(defn)
        owner = self.owner(tenant)
        for attempt in range(3):
            try:
                async with self._uow() as uow:
                    latest = await uow.versions.latest(defn.key)
                    if latest is not None and latest.tenant != owner:
                        raise _not_theirs(defn.key, latest.tenant)
                    if latest is not None and latest.checksum == digest:
                        return latest, False
                    record = await uow.versions.add(
                        key=defn.key,
                        name=defn.name,
                        checksum=digest,
                        schema=schema,
                        actor=actor,
                        tenant=owner,
                    )
                    await uow.audit.append(
                        AuditEntry(
                            action="workflow.version.published",
                            object_type="workflow_version",
                            object_id=record.id,
                            actor=actor,
                            after={
                                "key": defn.key,
                                "version": record.version,
                                "checksum": digest,
                                **({} if owner is None else {"tenant": owner}),
                            },
                        )
                    )
                    await uow.commit()
                    return record, True
            except ConcurrentModification:
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def latest(self, key: str) -> VersionRecord:
        async with self._uow() as uow:
            found = await uow.versions.latest(key)
        if found is None:
            raise NotFound(N_("no published version of this workflow"), definition_key=key)
        return found
