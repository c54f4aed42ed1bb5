"""Access levels of cases: the one authorisation point the API, the pages and the commands ask
whether a person may see a case, and the audited changes of a case's level and grants.

A case is *público* (``public``: anyone with ``workflow.read``), *restrito* (``restricted``:
the people involved — who started it, who holds or completed one of its tasks, the members of
its tasks' queues — and whoever classifies cases, ``workflow.classify``) or *sigiloso*
(``secret``: only people explicitly granted, until the grant expires or is revoked). A refusal
is the same ``NotFound`` as an unknown id, so it never tells that a hidden case exists. The
search and the inbox filter with the same rule in SQL (``persistence.access_repo``).

Opening a restricted or secret case (the instance page, the API's read of the instance,
``tramita instance show``) is a read the audit chain records (:func:`note_opening`, action
``case.opened`` with the level; a public case writes nothing).

A document has a level of its own, on top of its case's (``AccessPolicy.documents``,
``runtime.services.document_access``; the rule itself is ``runtime.services.visibility``).

Restricted and secret levels need a legal ground (*hipótese legal*) from the configured list
(:data:`DEFAULT_GROUNDS`, or the city's own through ``TRAMITA_WF_ACCESS_GROUNDS``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from types import MappingProxyType
from typing import Final, Literal

import msgspec

from contracts.errors import Conflict, NotFound, ValidationFailed
from contracts.kernel import Actor, AuditEntry, Clock, IdGen
from contracts.workflow.case import CASE_OPENED
from services.workflow.definition.messages import N_
from services.workflow.definition.model import Access
from services.workflow.runtime.ports import UnitOfWork
from services.workflow.runtime.ports.access import (
    LEVELS,
    AccessRecord,
    GrantRecord,
    Level,
    Viewer,
)
from services.workflow.runtime.services.document_access import DocumentLevels, unknown_document
from services.workflow.runtime.services.visibility import (
    can_see,
    checked_reason,
    is_uuid,
    sees_document,
)

CLASSIFY_PERMISSION: Final = "workflow.classify"
"""Change a case's level, grant and revoke access; see every restricted case."""

DEFAULT_GROUNDS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "lai.art22": N_("Secrecy provided by a specific law (LAI, art. 22)"),
        "lai.art23": N_(
            "Classified information, essential to the security of society or the State "
            "(LAI, arts. 23 and 24)"
        ),
        "lai.art31": N_("Personal information (LAI, art. 31)"),
        "lgpd.art11": N_("Sensitive personal data (LGPD, art. 11)"),
        "lei13460.art10": N_("Identity of the person reporting (Lei 13.460/2017, art. 10 §7)"),
        "ctn.art198": N_("Tax secrecy (CTN, art. 198)"),
        "lc105.art1": N_("Banking secrecy (LC 105/2001, art. 1)"),
        "cpp.art20": N_("Secrecy of an investigation (CPP, art. 20)"),
    }
)
"""Key → label (a catalog msgid) of the legal grounds offered when no list is configured."""

__all__ = [
    "CLASSIFY_PERMISSION",
    "DEFAULT_GROUNDS",
    "AccessPolicy",
    "AccessView",
    "Viewer",
    "can_see",
    "hides_task",
    "note_opening",
]


class AccessView(msgspec.Struct, frozen=True, kw_only=True):
    """A case's level, its legal ground and its grants (for people who may see the case)."""

    level: Level
    ground: str | None
    grants: list[GrantRecord] = []


def _unknown(instance_id: str) -> NotFound:
    """Exactly what an unknown id answers (``EngineReads._get``)."""
    return NotFound(N_("unknown instance"), instance_id=instance_id)


class AccessPolicy:
    """The one authorisation point for reading a case, and the changes of its access."""

    def __init__(
        self,
        *,
        uow_factory: Callable[[], UnitOfWork],
        clock: Clock,
        ids: IdGen,
        grounds: Mapping[str, str] = DEFAULT_GROUNDS,
    ) -> None:
        self._uow = uow_factory
        self._clock = clock
        self._ids = ids
        self.grounds = grounds
        self.documents = DocumentLevels(self, uow_factory, clock)
        """The levels of the cases' documents (``runtime.services.document_access``)."""

    async def can_see(self, uow: UnitOfWork, instance_id: str, viewer: Viewer) -> bool:
        """Whether the case exists and ``viewer`` may see it, in ``uow``'s transaction."""
        return await can_see(uow, instance_id, viewer, self._clock.now())

    async def ensure_visible(self, instance_id: str, viewer: Viewer) -> None:
        """``NotFound`` — the same as an unknown id — unless ``viewer`` may see the case."""
        async with self._uow() as uow:
            if not await self.can_see(uow, instance_id, viewer):
                raise _unknown(instance_id)

    async def ensure_owner_visible(
        self, kind: Literal["task", "document"], object_id: str, viewer: Viewer
    ) -> None:
        """``NotFound`` unless the task or document exists and ``viewer`` may see its case (and
        a document's own level, ``runtime.services.visibility``): a hidden one and an unknown
        one answer alike, before any permission check could tell them apart."""
        async with self._uow() as uow:
            if kind == "document":  # its case, then its own level
                seen = await sees_document(uow, object_id, viewer, self._clock.now())
            else:
                owner = await uow.access.owner(kind, object_id) if is_uuid(object_id) else None
                seen = owner is not None and await self.can_see(uow, owner, viewer)
        if seen:
            return
        if kind == "task":
            raise NotFound(N_("unknown task"), task_id=object_id)
        raise unknown_document(object_id)

    async def record_opening(
        self, instance_id: str, actor: Actor, *, document_id: str | None = None
    ) -> None:
        """Audit that ``actor`` opened the case, or downloaded its ``document_id``
        (:func:`note_opening`) in a transaction of its own, committed before the caller shows
        the case: when the entry cannot be written the caller gets the error, not the case. The
        route's guard has already refused a viewer who may not see it (``sees_instance``), so a
        refusal never writes."""
        async with self._uow() as uow:
            if await note_opening(uow, instance_id, actor, document_id=document_id):
                await uow.commit()

    async def view(self, instance_id: str, viewer: Viewer) -> AccessView:
        async with self._uow() as uow:
            if not await self.can_see(uow, instance_id, viewer):
                raise _unknown(instance_id)
            record = await uow.access.level_of(instance_id)
            grants = await uow.access.grants(instance_id)
        if record is None:
            return AccessView(level="public", ground=None, grants=grants)
        return AccessView(level=record.level, ground=record.ground, grants=grants)

    async def level_of(self, instance_id: str) -> Level:
        """The case's level, for the public timeline (which shows a restricted case's status
        only); unknown ids read as public — the caller already found the case."""
        async with self._uow() as uow:
            record = await uow.access.level_of(instance_id)
        return "public" if record is None else record.level

    def check_ground(
        self, level: str, ground: str | None, *, subject: Literal["case", "document"] = "case"
    ) -> str | None:
        if level not in LEVELS:
            raise ValidationFailed(N_("unknown access level"), field="level")
        if level == "public":
            return None
        if not ground or ground not in self.grounds:
            message = (
                N_("a restricted or secret case needs a legal ground from the list")
                if subject == "case"
                else N_("a restricted or secret document needs a legal ground from the list")
            )
            raise ValidationFailed(message, field="ground")
        return ground

    async def change(
        self,
        instance_id: str,
        level: str,
        ground: str | None,
        *,
        viewer: Viewer,
        actor: Actor,
        reason: str,
    ) -> AccessView:
        """Set the case's level with its ground (audited as ``workflow.access.changed``). A
        person who makes a case secret is granted it, so they do not lose it at once."""
        checked = self.check_ground(level, ground)
        reason = checked_reason(reason)
        now = self._clock.now()
        async with self._uow() as uow:
            if not await self.can_see(uow, instance_id, viewer):
                raise _unknown(instance_id)
            before = await uow.access.level_of(instance_id)
            await uow.access.set_level(
                AccessRecord(
                    instance_id=instance_id,
                    level=level,  # type: ignore[arg-type]
                    ground=checked,
                    changed_at=now,
                    changed_by=actor.id,
                )
            )
            if level == "secret" and actor.kind == "user":
                active = [g for g in await uow.access.grants(instance_id) if g.active(now)]
                if not any(g.user_id == actor.id for g in active):
                    await self._add_grant(uow, instance_id, actor.id, None, actor, reason)
            await uow.audit.append(
                AuditEntry(
                    action="workflow.access.changed",
                    object_type="workflow_instance",
                    object_id=instance_id,
                    actor=actor,
                    before=None
                    if before is None
                    else {"level": before.level, "ground": before.ground},
                    after={"level": level, "ground": checked},
                    reason=reason,
                    correlation_id=instance_id,
                )
            )
            await uow.commit()
        return await self.view(instance_id, viewer)

    async def _add_grant(
        self,
        uow: UnitOfWork,
        instance_id: str,
        user_id: str,
        expires_at: datetime | None,
        actor: Actor,
        reason: str,
    ) -> GrantRecord:
        grant = GrantRecord(
            id=str(self._ids.new_id()),
            instance_id=instance_id,
            user_id=user_id,
            granted_by=actor.id,
            granted_at=self._clock.now(),
            expires_at=expires_at,
        )
        await uow.access.add_grant(grant)
        await uow.audit.append(
            AuditEntry(
                action="workflow.access.granted",
                object_type="workflow_instance",
                object_id=instance_id,
                actor=actor,
                after={
                    "grant": grant.id,
                    "user": user_id,
                    "expires_at": None if expires_at is None else expires_at.isoformat(),
                },
                reason=reason,
                correlation_id=instance_id,
            )
        )
        return grant

    async def grant(
        self,
        instance_id: str,
        user_id: str,
        expires_at: datetime | None,
        *,
        viewer: Viewer,
        actor: Actor,
        reason: str,
    ) -> GrantRecord:
        """Let ``user_id`` see the case until ``expires_at`` (audited)."""
        reason = checked_reason(reason)
        if expires_at is not None and expires_at <= self._clock.now():
            raise ValidationFailed(N_("the expiry must be in the future"), field="expires_at")
        async with self._uow() as uow:
            if not await self.can_see(uow, instance_id, viewer):
                raise _unknown(instance_id)
            grant = await self._add_grant(uow, instance_id, user_id, expires_at, actor, reason)
            await uow.commit()
        return grant

    async def revoke(
        self, instance_id: str, grant_id: str, *, viewer: Viewer, actor: Actor, reason: str
    ) -> None:
        """End a grant now (audited); ``Conflict`` when it is not active on this case."""
        reason = checked_reason(reason)
        now = self._clock.now()
        async with self._uow() as uow:
            if not await self.can_see(uow, instance_id, viewer):
                raise _unknown(instance_id)
            mine = [g for g in await uow.access.grants(instance_id) if g.id == grant_id]
            if not mine or not await uow.access.revoke(grant_id, actor.id, now):
                raise Conflict(N_("no active grant with this id on this case"), grant=grant_id)
            await uow.audit.append(
                AuditEntry(
                    action="workflow.access.revoked",
                    object_type="workflow_instance",
                    object_id=instance_id,
                    actor=actor,
                    before={"grant": grant_id, "user": mine[0].user_id},
                    reason=reason,
                    correlation_id=instance_id,
                )
            )
            await uow.commit()


async def store_default_level(
    uow: UnitOfWork, instance_id: str, access: Access | None, now: datetime
) -> None:
    """A new case's level as its definition declares it, in the start's unit of work (the
    start's own audit entry records the case; a public case stores nothing)."""
    if access is not None and access.level != "public":
        await uow.access.set_level(
            AccessRecord(
                instance_id=instance_id,
                level=access.level,
                ground=access.ground,
                changed_at=now,
                changed_by=None,
            )
        )


async def note_opening(
    uow: UnitOfWork, instance_id: str, actor: Actor, *, document_id: str | None = None
) -> bool:
    """Append, in ``uow``'s transaction, the read entry of ``actor`` opening a restricted or
    secret case (``case.opened``: the instance's id, the viewer, the level; nothing of the case
    itself). A download names its ``document_id``: a restricted or secret document is recorded
    even in a public case (the entry adds the document's id; the level is the stricter of the
    two). A public case writes nothing, so everyday reads do not flood the chain. Whether an
    entry was appended (the caller commits it before showing the case)."""
    record = await uow.access.level_of(instance_id)
    level = "public" if record is None else record.level
    after: dict[str, str] = {}
    if document_id is not None:
        found = await uow.access.document(document_id)
        if found is not None and found[1] != "public":
            after["document"] = document_id
            level = max(level, found[1], key=LEVELS.index)
    if level == "public":
        return False
    await uow.audit.append(
        AuditEntry(
            action=CASE_OPENED,
            object_type="workflow_instance",
            object_id=instance_id,
            actor=actor,
            after={"level": level, **after},
            correlation_id=instance_id,
        )
    )
    return True


async def hides_task(uow: UnitOfWork, task_id: str, viewer: Viewer | None, now: datetime) -> bool:
    """Whether the task exists and its case is hidden from ``viewer`` (``False`` without a
    viewer, and for an unknown task: the action's own refusal answers it), for ids a person names
    in bulk, which no route guard sees."""
    if viewer is None or not is_uuid(task_id):
        return False
    owner = await uow.access.owner("task", task_id)
    return owner is not None and not await can_see(uow, owner, viewer, now)
