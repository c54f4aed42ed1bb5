"""A news item's status, usable without the workflow engine (plain mode)."""

from __future__ import annotations

from enum import StrEnum

from core.statuses import StatusMachine


class NewsStatus(StrEnum):
    DRAFT = "draft"
    PENDING = "pending"
    SCHEDULED = "scheduled"
    PUBLISHED = "published"
    REJECTED = "rejected"


NEWS_STATUS = StatusMachine(
    "noticias.news",
    {
        NewsStatus.DRAFT: frozenset({NewsStatus.PENDING}),
        NewsStatus.PENDING: frozenset(
            {NewsStatus.SCHEDULED, NewsStatus.PUBLISHED, NewsStatus.REJECTED}
        ),
        NewsStatus.SCHEDULED: frozenset({NewsStatus.PUBLISHED}),
        NewsStatus.REJECTED: frozenset({NewsStatus.DRAFT}),
    },
    initial=NewsStatus.DRAFT,
)
