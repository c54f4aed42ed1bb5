"""The engine's read side: an instance, its history, tasks and event log, and the compiled
model of the version it pins (read and compiled once per process: versions never change)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from contracts.errors import NotFound
from contracts.workflow.types import HistoryEntry, InstanceView, TaskView
from services.workflow.definition import CompiledModel, canonical_json
from services.workflow.definition.messages import N_
from services.workflow.runtime.kernel.events import Event, Migrated
from services.workflow.runtime.kernel.state import InstanceState, Token
from services.workflow.runtime.kernel.transitions import replay_versions
from services.workflow.runtime.ports import InstanceRecord, UnitOfWork, VersionRecord
from services.workflow.runtime.services.applier import decode_event, state_from_json
from services.workflow.runtime.services.publishing import ModelCompiler
from services.workflow.runtime.services.views import history_entry, instance_view, task_view


class EngineReads:
    """Reads of instances, in units of work of their own."""

    def __init__(self, uow_factory: Callable[[], UnitOfWork], compiler: ModelCompiler) -> None:
        self._uow: Callable[[], UnitOfWork] = uow_factory
        self.compiler = compiler
        self._versions: dict[str, VersionRecord] = {}

    async def _get(self, uow: UnitOfWork, instance_id: str) -> InstanceRecord:
        record = await uow.instances.get(instance_id)
        if record is None:
            raise NotFound(N_("unknown instance"), instance_id=instance_id)
        return record

    async def status(self, instance_id: str) -> InstanceView:
        async with self._uow() as uow:
            return instance_view(await self._get(uow, instance_id), with_context=True)

    async def history(self, instance_id: str) -> list[HistoryEntry]:
        async with self._uow() as uow:
            await self._get(uow, instance_id)
            return [history_entry(r) for r in await uow.history.of(instance_id)]

    async def tasks(self, instance_id: str) -> list[TaskView]:
        async with self._uow() as uow:
            record = await self._get(uow, instance_id)
            return [task_view(t, record.protocol) for t in await uow.tasks.of(instance_id)]

    async def model_of(self, uow: UnitOfWork, record: InstanceRecord) -> CompiledModel:
        """The compiled model of the instance's pinned version (versions never change, so a
        model is read and compiled once per process)."""
        version = self._versions.get(record.version_id)
        if version is None:
            version = await uow.versions.get(record.version_id)
            assert version is not None, "an instance always pins an existing version"
            self._versions[record.version_id] = version
        return self.compiler.for_version(version, record.definition_key)

    async def definition_document(self, instance_id: str) -> dict[str, Any]:
        """The definition the instance runs, shaped as a version's stored document: its pinned
        version's, or for the child of an embedded sub-process (``definition_key``
        ``<key>.<node id>``, no version of its own) that sub-process's, through
        :meth:`model_of` as the engine reads it. Pages read step and outcome names here."""
        async with self._uow() as uow:
            model = await self.model_of(uow, await self._get(uow, instance_id))
        document: dict[str, Any] = msgspec.json.decode(canonical_json(model.definition))
        return document

    async def _latest(self, uow: UnitOfWork, key: str) -> VersionRecord | None:
        """The newest published version; its schema is read once per process (a published
        version never changes)."""
        version_id = await uow.versions.latest_id(key)
        if version_id is None:
            return None
        version = self._versions.get(version_id)
        if version is None:
            version = await uow.versions.get(version_id)
            if version is not None:
                self._versions[version_id] = version
        return version

    async def events(self, instance_id: str) -> list[Event]:
        """The instance's event log, in order (what ``replay`` folds over)."""
        async with self._uow() as uow:
            await self._get(uow, instance_id)
            return [
                decode_event(h.data["event"])
                for h in await uow.history.of(instance_id)
                if "event" in h.data
            ]

    async def tokens(self, instance_id: str) -> tuple[Token, ...]:
        """The instance's tokens as stored (what a repair may move); ``NotFound`` if unknown."""
        async with self._uow() as uow:
            record = await self._get(uow, instance_id)
        return tuple(state_from_json(record.state).tokens)

    async def replayed_state(self, instance_id: str) -> tuple[InstanceState, InstanceState]:
        """(stored state, state rebuilt from history): equal for every healthy instance.

        A migrated instance's log spans versions: each segment replays with the model of the
        version it ran on (the ``migrated`` events name them)."""
        events = await self.events(instance_id)
        migrations = [e for e in events if isinstance(e, Migrated)]
        async with self._uow() as uow:
            record = await self._get(uow, instance_id)
            first = migrations[0].from_version_id if migrations else record.version_id
            models = {}
            for version_id in {first, *(m.to_version_id for m in migrations)}:
                version = await uow.versions.get(version_id)
                assert version is not None, "history only names published versions"
                models[version_id] = self.compiler.for_version(version, record.definition_key)
        stored = state_from_json(record.state)
        return stored, replay_versions(models, first, events)
