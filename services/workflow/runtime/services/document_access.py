"""Access levels of documents: the same rule as cases (``runtime.services.access``), applied to a
document's own level, on top of its case's.

A viewer must first be allowed to see the case. Then a *público* document is shown to all of
them; a *restrito* one only to those who may see a restricted case (the people involved — who
started it, who holds or completed one of its tasks, the members of its tasks' queues —,
whoever classifies cases, and the people granted the case); a *sigiloso* one only to the people
explicitly granted the case (the case's grants: same expiry and revocation). A hidden document
is the same ``NotFound`` as an unknown one and is never listed.

``runtime.services.visibility`` holds the rule (``document_levels``, ``sees_document``);
:class:`AccessPolicy`'s ``ensure_owner_visible`` (the routers' guard on ``{document_id}``) and
:meth:`DocumentLevels.levels` (the lists) both ask it. Changing a document's level needs a
legal ground from the configured list, like a case's, and is audited
(``workflow.document.access.changed``, in the case's chain).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from contracts.errors import NotFound
from contracts.kernel import Actor, AuditEntry, Clock
from services.workflow.runtime.ports import UnitOfWork
from services.workflow.runtime.ports.access import Level, Viewer
from services.workflow.runtime.services.visibility import (
    checked_reason,
    document_levels,
    sees_document,
)

if TYPE_CHECKING:
    from services.workflow.runtime.services.access import AccessPolicy

DOCUMENT_ACCESS_CHANGED: Final = "workflow.document.access.changed"


def unknown_document(document_id: str) -> NotFound:
    """Exactly what an unknown document id answers (``DocumentService.get``)."""
    return NotFound("no such document", document_id=document_id)


class DocumentLevels:
    """The documents' side of :class:`AccessPolicy` (``policy.documents``)."""

    def __init__(
        self, policy: AccessPolicy, uow_factory: Callable[[], UnitOfWork], clock: Clock
    ) -> None:
        self._policy = policy
        self._uow = uow_factory
        self._clock = clock

    async def levels(self, instance_id: str, viewer: Viewer) -> frozenset[Level]:
        """What a list of the case's documents may show ``viewer`` (:func:`document_levels`)."""
        async with self._uow() as uow:
            return await document_levels(uow, instance_id, viewer, self._clock.now())

    def check(self, level: str, ground: str | None) -> str | None:
        """The ground to store for a document of ``level`` (``ValidationFailed`` on the
        ``level`` or ``ground`` field when unknown or missing)."""
        return self._policy.check_ground(level, ground, subject="document")

    async def change(
        self,
        document_id: str,
        level: str,
        ground: str | None,
        *,
        viewer: Viewer,
        actor: Actor,
        reason: str,
    ) -> None:
        """Set the document's level with its ground (audited, with the reason, in the case's
        chain). A person who makes a document secret without a grant on the case stops
        seeing it."""
        checked = self.check(level, ground)
        reason = checked_reason(reason)
        async with self._uow() as uow:
            found = await uow.access.document(document_id)
            now = self._clock.now()
            if found is None or not await sees_document(uow, document_id, viewer, now):
                raise unknown_document(document_id)
            instance_id, before = found
            await uow.access.set_document_level(document_id, level, checked)  # type: ignore[arg-type]
            await uow.audit.append(
                AuditEntry(
                    action=DOCUMENT_ACCESS_CHANGED,
                    object_type="workflow_document",
                    object_id=document_id,
                    actor=actor,
                    before={"level": before},
                    after={"level": level, "ground": checked},
                    reason=reason,
                    correlation_id=instance_id,
                )
            )
            await uow.commit()
