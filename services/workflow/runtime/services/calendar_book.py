"""Stored calendar versions: publish, revise, follow a state calendar, list, build.

The deadline service inherits this part (``DeadlineService(CalendarBook)``): one object, one
set of engine operations for pages, CLI and API. :meth:`CalendarBook.change_calendar` is the
operation a person's change goes through: the next version of the calendar, the next version
of every city calendar built on it when it is a state calendar (each audited, one
transaction), then the open deadlines counting on an older version recomputed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from typing import Any

import msgspec

from contracts.errors import ConcurrentModification
from contracts.kernel import Actor, AuditEntry, Clock
from services.workflow.calendar import (
    Calendar,
    CalendarChange,
    CalendarEdit,
    CalendarSpec,
    DatedHoliday,
    follow_state,
    revise,
    verify_spec,
)
from services.workflow.runtime.ports import UnitOfWork
from services.workflow.runtime.ports.deadlines import (
    CalendarNotFound,
    CalendarVersionConflict,
    CalendarVersionRow,
    DeadlineStore,
    DeadlineView,
)


class CalendarRevision(msgspec.Struct, frozen=True, kw_only=True):
    """The result of a change: the new version, the city calendars that followed a state
    calendar to it (their new versions), and how many open deadlines were recomputed."""

    spec: CalendarSpec
    followers: tuple[CalendarSpec, ...]
    recomputed: int


def _day(value: Any) -> str:
    return value.isoformat() if isinstance(value, date) else str(value)


def _audit_after(change: CalendarChange) -> dict[str, Any]:
    """Identifiers, dates and decisions only; free text (the reason) goes to ``reason``."""
    after: dict[str, Any] = {
        "version": change.version_after,
        "checksum": change.checksum_after,
        "added": [item.on.isoformat() for item in change.added],
        "removed": [day.isoformat() for day in change.removed],
    }
    if change.optional_days:
        after["optional_days"] = [
            {"on": item.on.isoformat(), "closes": item.closes, "decree": item.decree}
            for item in change.optional_days
        ]
    for name in ("state_holidays", "municipal_holidays"):
        items = getattr(change, name)
        if items:
            after[name] = [msgspec.to_builtins(item) for item in items]
    if change.state_after is not None and change.state_after != change.state_before:
        after["state"] = msgspec.to_builtins(change.state_after)
    return after


CalendarCache = dict[tuple[str, int, str], Calendar]
"""Built calendars by (key, version, checksum): versions are immutable, so a process builds
each one once."""


async def build_calendar(
    store: DeadlineStore, spec: CalendarSpec, cache: CalendarCache
) -> Calendar:
    """A stored version built with the state calendar version it names (cached per version)."""
    cache_key = (spec.key, spec.version, spec.checksum)
    if cache_key not in cache:
        state = None
        if spec.state is not None:
            state = await store.calendar(spec.state.key, spec.state.version)
            if state is None:
                raise CalendarNotFound(calendar_key=spec.state.key, version=spec.state.version)
        cache[cache_key] = Calendar.from_spec(spec, state)
    return cache[cache_key]


class CalendarBook:
    """Calendar versions on the store; each change audited in its own unit of work."""

    def __init__(
        self,
        *,
        uow_factory: Callable[[], UnitOfWork],
        store: Callable[[UnitOfWork], DeadlineStore],
        clock: Clock,
    ) -> None:
        self._uow = uow_factory
        self._store = store
        self._clock = clock
        # Versions are immutable, so a built calendar can be reused for the process lifetime.
        self._calendars: CalendarCache = {}

    async def publish_calendar(self, spec: CalendarSpec, actor: Actor) -> bool:
        """Store a sealed spec as a new version; False if this exact version is already stored.

        A different spec under a stored version, or a gap in the numbering, is refused; so is
        a city calendar naming a state calendar version that is not stored.
        """
        verify_spec(spec)
        async with self._uow() as uow:
            store = self._store(uow)
            if spec.state is not None:
                await self._build(store, spec)  # the state layer exists and fits
            created = await self._add_version(store, spec, actor)
            if created:
                await uow.audit.append(
                    AuditEntry(
                        action="workflow.calendar.published",
                        object_type="workflow_calendar",
                        object_id=spec.key,
                        actor=actor,
                        after={"version": spec.version, "checksum": spec.checksum},
                    )
                )
            await uow.commit()
        return created

    async def _add_version(self, store: DeadlineStore, spec: CalendarSpec, actor: Actor) -> bool:
        latest = await store.latest_calendar(spec.key)
        top = 0 if latest is None else latest.version
        if spec.version <= top:
            stored = await store.calendar(spec.key, spec.version)
            if stored is not None and stored.checksum == spec.checksum:
                return False
            raise CalendarVersionConflict(
                "A stored calendar version cannot change.",
                calendar_key=spec.key,
                version=spec.version,
            )
        if spec.version != top + 1:
            raise CalendarVersionConflict(
                "Calendar versions follow each other.",
                calendar_key=spec.key,
                version=spec.version,
                latest_version=top,
            )
        if not await store.add_calendar(spec, at=self._clock.now(), by=actor.id):
            raise ConcurrentModification(
                "Another process stored this calendar version.",
                calendar_key=spec.key,
                version=spec.version,
            )
        return True

    async def _store_change(
        self,
        uow: UnitOfWork,
        store: DeadlineStore,
        spec: CalendarSpec,
        change: CalendarChange,
        actor: Actor,
    ) -> None:
        await self._add_version(store, spec, actor)
        await uow.audit.append(
            AuditEntry(
                action="workflow.calendar.revised",
                object_type="workflow_calendar",
                object_id=spec.key,
                actor=actor,
                before={"version": change.version_before, "checksum": change.checksum_before},
                after=_audit_after(change),
                reason=change.reason,
            )
        )

    async def revise_calendar(
        self,
        key: str,
        *,
        add_closed: Sequence[DatedHoliday] = (),
        remove_closed: Sequence[date] = (),
        reason: str,
        actor: Actor,
    ) -> CalendarSpec:
        """Store the next version of calendar ``key`` with closures added/removed, audited."""
        edit = CalendarEdit(add_closed=tuple(add_closed), remove_closed=tuple(remove_closed))
        return (await self._revise(key, edit, reason, actor)).spec

    async def change_calendar(
        self, key: str, edit: CalendarEdit, *, reason: str, actor: Actor
    ) -> CalendarRevision:
        """The one operation behind ``tramita calendar add`` and the calendar page: the next
        version of ``key`` (and of each city calendar built on it), then the open deadlines of
        every calendar that changed recomputed on its new version."""
        revised = await self._revise(key, edit, reason, actor)
        moved = 0
        for spec in (revised.spec, *revised.followers):
            moved += len(await self.recompute_open(spec.key, actor))
        return msgspec.structs.replace(revised, recomputed=moved)

    async def _revise(
        self, key: str, edit: CalendarEdit, reason: str, actor: Actor
    ) -> CalendarRevision:
        now = self._clock.now()
        async with self._uow() as uow:
            store = self._store(uow)
            current = await store.latest_calendar(key)
            if current is None:
                raise CalendarNotFound(calendar_key=key)
            spec, change = revise(
                current,
                **{name: getattr(edit, name) for name in edit.__struct_fields__},
                reason=reason,
                actor=actor.id,
                at=now,
            )
            await self._store_change(uow, store, spec, change, actor)
            followers: list[CalendarSpec] = []
            if spec.layer == "state":
                for city in await store.latest_calendars():
                    if city.state is None or city.state.key != key:
                        continue
                    why = f"{reason.strip()} (calendário estadual {key} v{spec.version})"
                    follower, city_change = follow_state(
                        city, spec, reason=why, actor=actor.id, at=now
                    )
                    await self._store_change(uow, store, follower, city_change, actor)
                    followers.append(follower)
            await uow.commit()
        return CalendarRevision(spec=spec, followers=tuple(followers), recomputed=0)

    async def calendar(self, key: str, version: int | None = None) -> CalendarSpec:
        """A stored version (the latest if ``version`` is None)."""
        async with self._uow() as uow:
            store = self._store(uow)
            spec = await (
                store.latest_calendar(key) if version is None else store.calendar(key, version)
            )
        if spec is None:
            raise CalendarNotFound(calendar_key=key, version=version)
        return spec

    async def built_calendar(self, key: str, version: int | None = None) -> Calendar:
        """A stored version built with its state layer, ready to say which layer closes a day."""
        async with self._uow() as uow:
            store = self._store(uow)
            spec = await (
                store.latest_calendar(key) if version is None else store.calendar(key, version)
            )
            if spec is None:
                raise CalendarNotFound(calendar_key=key, version=version)
            return await self._build(store, spec)

    async def calendars(self) -> list[CalendarSpec]:
        """The latest version of every stored calendar, by key."""
        async with self._uow() as uow:
            return await self._store(uow).latest_calendars()

    async def calendar_versions(self, key: str) -> list[CalendarVersionRow]:
        """Every stored version of ``key`` (newest first): when, by whom, its checksum."""
        async with self._uow() as uow:
            rows = await self._store(uow).calendar_versions(key)
        if not rows:
            raise CalendarNotFound(calendar_key=key)
        return rows

    async def _build(self, store: DeadlineStore, spec: CalendarSpec) -> Calendar:
        return await build_calendar(store, spec, self._calendars)

    async def _latest(self, store: DeadlineStore, key: str) -> Calendar:
        spec = await store.latest_calendar(key)
        if spec is None:
            raise CalendarNotFound(calendar_key=key)
        return await self._build(store, spec)

    async def recompute_open(self, calendar_key: str, actor: Actor) -> list[DeadlineView]:
        """Rebuild every open deadline counting with an older version (the deadline service)."""
        raise NotImplementedError


__all__ = ["CalendarBook", "CalendarCache", "CalendarRevision", "build_calendar"]
