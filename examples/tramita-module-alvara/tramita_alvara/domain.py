"""A licence request's legal status, usable without the workflow engine (plain mode)."""

from __future__ import annotations

from enum import StrEnum

from core.statuses import StatusMachine


class LicenceStatus(StrEnum):
    DRAFT = "draft"
    UNDER_REVIEW = "under_review"
    APPROVED = "approved"
    ISSUED = "issued"
    REJECTED = "rejected"


LICENCE_STATUS = StatusMachine(
    "alvara.licence",
    {
        LicenceStatus.DRAFT: frozenset({LicenceStatus.UNDER_REVIEW}),
        LicenceStatus.UNDER_REVIEW: frozenset({LicenceStatus.APPROVED, LicenceStatus.REJECTED}),
        LicenceStatus.APPROVED: frozenset({LicenceStatus.ISSUED}),
    },
    initial=LicenceStatus.DRAFT,
)
