"""``noticias.aprovacao`` as data: editorial approval, then publication at ``publish_at``.

The scheduled publication is a ``timer`` node whose ``until`` reads ``publish_at`` from the
context (an RFC 3339 timestamp the module puts there when it submits the item).
"""

from __future__ import annotations

from typing import Any

from modules.noticias.domain import NewsStatus

EDITORIAL_QUEUE = "noticias.editorial"
WRITER_ID = "0190d1a0-0000-7000-8000-00000000f101"
EDITOR_ID = "0190d1a0-0000-7000-8000-00000000f102"
QUEUES: dict[str, tuple[str, tuple[str, ...]]] = {
    EDITORIAL_QUEUE: ("Notícias — editoria", (EDITOR_ID,)),
}
PROFILES: dict[str, tuple[str, ...]] = {
    "noticias.redacao": ("noticias.write",),
    "noticias.editoria": ("noticias.edit",),
}
FORMS: tuple[dict[str, Any], ...] = (
    {
        "format": 1,
        "key": "noticias.review",
        "version": 1,
        "title": "Revisão editorial",
        "fields": [{"id": "reject_reason", "type": "long_text", "label": "Motivo da rejeição"}],
    },
)

APROVACAO: dict[str, Any] = {
    "format": 1,
    "key": "noticias.aprovacao",
    "name": "Notícias — aprovação editorial",
    "protocol_prefix": "NOT",
    "subject_type": "noticias.news",
    "nodes": [
        {
            "id": "submitted",
            "type": "start",
            "produces": ["news_id", "publish_at"],
            "next": "editorial",
        },
        {
            "id": "editorial",
            "type": "approval",
            "name": "Revisão editorial",
            "queue": EDITORIAL_QUEUE,
            "form": "noticias.review@1",
            "consumes": ["news_id"],
            "produces": ["reject_reason"],
            "policy": {"exclude_author": True},
            "outcomes": {"approve": "scheduled", "reject": "rejected"},
            "outcome_names": {"approve": "Aprovar a notícia", "reject": "Rejeitar a notícia"},
        },
        {"id": "scheduled", "type": "timer", "until": "publish_at", "next": "publish"},
        {
            "id": "publish",
            "type": "service_task",
            "handler": "noticias.publish",
            "consumes": ["news_id"],
            "produces": ["published_at"],
            "failure": {"pending_queue": EDITORIAL_QUEUE},
            "next": "published",
        },
        {"id": "published", "type": "end", "public": {"label": "Publicada"}},
        {"id": "rejected", "type": "end", "result": "rejected"},
    ],
}

NODE_STATUS: dict[str, NewsStatus] = {
    "editorial": NewsStatus.PENDING,
    "scheduled": NewsStatus.SCHEDULED,
    "published": NewsStatus.PUBLISHED,
    "rejected": NewsStatus.REJECTED,
}
