"""Organisational units: who supervises which queues.

A unit (``saude`` — Secretaria de Saúde, ``ouvidoria`` — Ouvidoria-Geral) has a key, a pt-BR
name, the queues it oversees (a queue belongs to at most one unit) and its supervisors. A person
who holds ``workflow.supervise`` *and* supervises a unit sees the inbox across the unit's queues
and the dashboard scoped to it; ``workflow.admin`` still sees everything; anyone else sees only
their own queues. Modules may declare units and name a queue's unit at registration
(``QueueRegistrar.unit`` / ``add(unit=)``); at boot the catalog creates the units that are
missing and places each queue that has no unit yet, never undoing what an administrator
changed. Every change by a person is one transaction with an audit entry and a reason.

SQL lives in ``persistence/units_repo.py`` behind ``runtime.ports.units.UnitStore``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from contracts.errors import FieldError, NotFound, ValidationFailed
from contracts.kernel import Actor, AuditEntry, Clock
from services.workflow.definition.messages import N_
from services.workflow.runtime.ports import UnitOfWork
from services.workflow.runtime.ports.units import UnitRecord, UnitStore

__all__ = ["SUPERVISE_PERMISSION", "Scope", "UnitRecord", "UnitService", "UnitStore"]

SUPERVISE_PERMISSION = "workflow.supervise"
"""With supervision of a unit: the inbox across the unit's queues and its dashboard."""
KEY_PATTERN = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")
MAX_KEY = 100
MAX_NAME = 200
MAX_REASON = 500


class Scope(msgspec.Struct, frozen=True, kw_only=True):
    """What a person may oversee: everything (``admin``) or the queues of ``units``."""

    admin: bool
    units: tuple[UnitRecord, ...] = ()

    @property
    def supervisor(self) -> bool:
        return self.admin or bool(self.units)

    def queues(self, unit: str | None = None) -> frozenset[str] | None:
        """The queues in view (``None``: every queue, for an administrator without a unit
        picked). A unit outside the scope is ``NotFound`` — the same answer as a unit that
        does not exist, so a person learns nothing of units they do not supervise."""
        if unit:
            found = [u for u in self.units if u.key == unit]
            if not found:
                raise NotFound(N_("unknown unit"), code="unknown_unit")
            return frozenset(found[0].queues)
        if self.admin:
            return None
        return frozenset(q for u in self.units for q in u.queues)


def _reason(reason: str | None) -> tuple[str, list[FieldError]]:
    text = (reason or "").strip()
    if not text or len(text) > MAX_REASON:
        return text, [FieldError(path="reason", code="reason_required", message="A reason.")]
    return text, []


def _key_errors(key: str, path: str) -> list[FieldError]:
    if not KEY_PATTERN.match(key) or len(key) > MAX_KEY:
        return [
            FieldError(
                path=path,
                code="invalid_key",
                message="Lower-case letters, digits, _ and dots, starting with a letter.",
            )
        ]
    return []


class UnitService:
    """Units and their supervisors; reads for scoping, audited changes for administrators."""

    def __init__(
        self,
        *,
        uow_factory: Callable[[], UnitOfWork],
        store: Callable[[UnitOfWork], UnitStore],
        clock: Clock,
    ) -> None:
        self._uow = uow_factory
        self._store = store
        self._clock = clock

    # --- reads --------------------------------------------------------------------------------

    async def units(self) -> list[UnitRecord]:
        async with self._uow() as uow:
            return await self._store(uow).units()

    async def unit(self, key: str) -> UnitRecord:
        async with self._uow() as uow:
            found = await self._store(uow).unit(key)
        if found is None:
            raise NotFound(N_("unknown unit"), code="unknown_unit")
        return found

    async def scope(self, user_id: str, *, admin: bool, supervise: bool) -> Scope:
        """What ``user_id`` oversees given their permissions (read by the caller): every unit
        for an administrator, the units they supervise for a holder of ``workflow.supervise``,
        none otherwise."""
        if not admin and not supervise:
            return Scope(admin=False)
        async with self._uow() as uow:
            store = self._store(uow)
            found = await (store.units() if admin else store.supervised_by(user_id))
        return Scope(admin=admin, units=tuple(found))

    # --- changes ------------------------------------------------------------------------------

    async def add(self, key: str, name: str, *, actor: Actor, reason: str | None) -> bool:
        """Create a unit; false when it exists with that name already (a different name is a
        ``ValidationFailed``: a unit is renamed by nobody but its module's registration)."""
        key, name = key.strip(), name.strip()
        text, errors = _reason(reason)
        errors = [*_key_errors(key, "key"), *errors]
        if not name or len(name) > MAX_NAME:
            errors.append(FieldError(path="name", code="name_required", message="A name."))
        if errors:
            raise ValidationFailed("a unit needs a key, a name and a reason", errors=errors)
        async with self._uow() as uow:
            store = self._store(uow)
            found = await store.unit(key)
            if found is not None:
                if found.name == name:
                    return False
                raise ValidationFailed(
                    "the unit exists with another name",
                    errors=[FieldError(path="key", code="unit_exists", message="Key in use.")],
                )
            await store.add_unit(key, name, self._clock.now())
            await self._audit(uow, "workflow.unit.created", key, actor, {"name": name}, text)
            await uow.commit()
        return True

    async def add_queue(self, unit: str, queue: str, *, actor: Actor, reason: str | None) -> bool:
        """Place ``queue`` in ``unit`` (moving it out of the unit it was in); false when it
        was there already."""
        text, errors = _reason(reason)
        if errors:
            raise ValidationFailed("a reason is required", errors=errors)
        async with self._uow() as uow:
            store = self._store(uow)
            if await store.unit(unit) is None:
                raise NotFound(N_("unknown unit"), code="unknown_unit")
            if not await store.queue_exists(queue):
                raise NotFound(N_("unknown queue"), queue=queue)
            previous = await store.queue_unit(queue)
            if previous == unit:
                return False
            await store.set_queue_unit(queue, unit, self._clock.now())
            after = {"queue": queue, "previous_unit": previous}
            await self._audit(uow, "workflow.unit.queue_assigned", unit, actor, after, text)
            await uow.commit()
        return True

    async def add_supervisor(
        self, unit: str, user_id: str, *, actor: Actor, reason: str | None
    ) -> bool:
        """Make ``user_id`` (an existing user: the caller checks the directory) a supervisor;
        false when they already were one."""
        return await self._supervisor(unit, user_id, actor, reason, add=True)

    async def remove_supervisor(
        self, unit: str, user_id: str, *, actor: Actor, reason: str | None
    ) -> bool:
        return await self._supervisor(unit, user_id, actor, reason, add=False)

    async def _supervisor(
        self, unit: str, user_id: str, actor: Actor, reason: str | None, *, add: bool
    ) -> bool:
        text, errors = _reason(reason)
        if errors:
            raise ValidationFailed("a reason is required", errors=errors)
        async with self._uow() as uow:
            store = self._store(uow)
            if await store.unit(unit) is None:
                raise NotFound(N_("unknown unit"), code="unknown_unit")
            if add:
                changed = await store.add_supervisor(unit, user_id, self._clock.now())
                action = "workflow.unit.supervisor_added"
            else:
                changed = await store.remove_supervisor(unit, user_id)
                action = "workflow.unit.supervisor_removed"
            if changed:
                await self._audit(uow, action, unit, actor, {"supervisor": user_id}, text)
                await uow.commit()
        return changed

    async def sync(
        self, units: Mapping[str, str], queue_units: Mapping[str, str], *, actor: Actor
    ) -> list[str]:
        """At boot: create the registered units that are missing and place each registered
        queue that has no unit yet in the unit its module named. One transaction."""
        lines: list[str] = []
        now = self._clock.now()
        async with self._uow() as uow:
            store = self._store(uow)
            for key, name in sorted(units.items()):
                if await store.unit(key) is None:
                    await store.add_unit(key, name, now)
                    await self._audit(uow, "workflow.unit.created", key, actor, {"name": name})
                    lines.append(f"unit {key}")
            for queue, unit in sorted(queue_units.items()):
                if await store.unit(unit) is None or not await store.queue_exists(queue):
                    continue
                if await store.queue_unit(queue) is None:
                    await store.set_queue_unit(queue, unit, now)
                    after = {"queue": queue, "previous_unit": None}
                    await self._audit(uow, "workflow.unit.queue_assigned", unit, actor, after)
            await uow.commit()
        return lines

    async def _audit(
        self,
        uow: UnitOfWork,
        action: str,
        unit: str,
        actor: Actor,
        after: dict[str, Any],
        reason: str | None = None,
    ) -> None:
        await uow.audit.append(
            AuditEntry(
                action=action,
                object_type="workflow_unit",
                object_id=unit,
                actor=actor,
                after=after,
                reason=reason,
            )
        )
