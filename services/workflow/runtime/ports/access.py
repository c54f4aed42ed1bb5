"""Access levels as storage keeps them: a case's level and legal ground, and the people granted
a secret case (``uow.access``).

``persistence.access_repo.SqlAccessRepo`` implements :class:`AccessStore` on the unit of work's
transaction; ``runtime.services.access`` is the one authorisation point that reads it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Final, Literal, Protocol

import msgspec

Level = Literal["public", "restricted", "secret"]
LEVELS: Final = ("public", "restricted", "secret")
"""*Público*, *restrito* (the queues and people involved) and *sigiloso* (only those granted)."""


class Viewer(msgspec.Struct, frozen=True, kw_only=True):
    """Who asks to see a case: a user (``None``: nobody signed in, sees public cases only),
    whether they hold ``workflow.classify``, and the tenant they act for (a case of another
    tenant does not exist for them)."""

    user_id: str | None
    tenant: str | None
    """``None``: every tenant (a platform administrator, ``workflow.tenants``)."""
    classifier: bool = False


class AccessRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A case's level; a case without a stored record is public."""

    instance_id: str
    level: Level
    ground: str | None
    changed_at: datetime
    changed_by: str | None


class GrantRecord(msgspec.Struct, frozen=True, kw_only=True):
    """One person allowed to see a case, until ``expires_at`` (open-ended when ``None``) or
    until revoked."""

    id: str
    instance_id: str
    user_id: str
    granted_by: str | None
    granted_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None = None
    revoked_by: str | None = None

    def active(self, now: datetime) -> bool:
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > now)


class AccessStore(Protocol):
    """What the authorisation point needs from persistence."""

    async def level_of(self, instance_id: str) -> AccessRecord | None: ...

    async def set_level(self, record: AccessRecord) -> None:
        """Store the case's level (insert or replace)."""
        ...

    async def visible(self, instance_id: str, viewer: Viewer, now: datetime) -> bool:
        """Whether the instance exists, is of the viewer's tenant and the viewer may see it
        (the same rule the search and the inbox filter with)."""
        ...

    async def owner(self, kind: Literal["task", "document"], object_id: str) -> str | None:
        """The instance a task or a document belongs to (``None``: no such object)."""
        ...

    async def clearance(
        self, instance_id: str, user_id: str, *, classifier: bool, now: datetime
    ) -> frozenset[Level]:
        """The levels of the case's documents ``user_id`` may see, by the same rule as cases:
        ``public``; ``restricted`` when they classify cases, are involved in it or hold an
        active grant; ``secret`` with an active grant. (Whether they may see the case at all
        is :meth:`visible`'s to answer.)"""
        ...

    async def document(self, document_id: str) -> tuple[str, Level] | None:
        """A document's instance and level (``None``: no such document)."""
        ...

    async def set_document_level(self, document_id: str, level: Level, ground: str | None) -> None:
        """Store a document's level and legal ground."""
        ...

    async def grants(self, instance_id: str) -> list[GrantRecord]:
        """Every grant of the case, oldest first (revoked and expired ones too)."""
        ...

    async def add_grant(self, grant: GrantRecord) -> None: ...

    async def revoke(self, grant_id: str, by: str | None, now: datetime) -> bool:
        """Revoke an active grant; ``False`` when there is none with this id."""
        ...
