"""The rule of who sees what, in a unit of work: a case (:func:`can_see`) and, on top of it,
a document by its own level (:func:`document_levels`, :func:`sees_document`).

``runtime.services.access.AccessPolicy`` is the one authorisation point the API, the pages and
the commands ask; it and the document levels (``runtime.services.document_access``) both answer
from here, and the search and the inbox filter with the same rule in SQL
(``persistence.access_repo``).

A document is seen by whoever may see its case when it is public; when restricted, by those
who may see a restricted case (the people involved, classifiers, the people granted it); when
secret, only by the people granted the case.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Final

from contracts.errors import ValidationFailed
from services.workflow.definition.messages import N_
from services.workflow.runtime.ports import UnitOfWork
from services.workflow.runtime.ports.access import Level, Viewer

MAX_REASON = 500
NOTHING: Final[frozenset[Level]] = frozenset()
PUBLIC_ONLY: Final[frozenset[Level]] = frozenset({"public"})


async def can_see(uow: UnitOfWork, instance_id: str, viewer: Viewer, now: datetime) -> bool:
    """The rule itself (:class:`AccessPolicy` and the commands' reads both ask it)."""
    if not is_uuid(instance_id):
        return False
    return await uow.access.visible(instance_id, viewer, now)


async def document_levels(
    uow: UnitOfWork, instance_id: str, viewer: Viewer, now: datetime
) -> frozenset[Level]:
    """The levels of the case's documents ``viewer`` may see: none when they may not see the
    case; public only for nobody signed in."""
    if not await can_see(uow, instance_id, viewer, now):
        return NOTHING
    if viewer.user_id is None:
        return PUBLIC_ONLY
    return await uow.access.clearance(
        instance_id, viewer.user_id, classifier=viewer.classifier, now=now
    )


async def sees_document(uow: UnitOfWork, document_id: str, viewer: Viewer, now: datetime) -> bool:
    """Whether the document exists and ``viewer`` may see it (its case, then its level)."""
    found = await uow.access.document(document_id) if is_uuid(document_id) else None
    if found is None:
        return False
    instance_id, level = found
    return level in await document_levels(uow, instance_id, viewer, now)


def is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def checked_reason(reason: str) -> str:
    """The reason of an access change, trimmed; ``ValidationFailed`` when empty."""
    reason = reason.strip()
    if not reason:
        raise ValidationFailed(N_("a reason is required"), field="reason")
    return reason[:MAX_REASON]
