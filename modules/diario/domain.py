"""The act's legal status, usable without the workflow engine (plain mode)."""

from __future__ import annotations

from enum import StrEnum

from core.statuses import StatusMachine


class ActStatus(StrEnum):
    DRAFT = "draft"
    REVIEW = "review"
    APPROVED = "approved"
    PUBLISHED = "published"
    REJECTED = "rejected"


ACT_STATUS = StatusMachine(
    "diario.act",
    {
        ActStatus.DRAFT: frozenset({ActStatus.REVIEW}),
        ActStatus.REVIEW: frozenset({ActStatus.APPROVED, ActStatus.DRAFT, ActStatus.REJECTED}),
        ActStatus.APPROVED: frozenset({ActStatus.PUBLISHED}),
    },
    initial=ActStatus.DRAFT,
)
