"""``diario.publicacao`` as data, its forms and queues, and the staff the demo and tests use.

Four eyes are enforced by the engine's authorisation (``policy``): the reviewer and the approver
are never the author, and the approver is not the reviewer.
"""

from __future__ import annotations

from typing import Any

from modules.diario.domain import ActStatus

REVIEW_QUEUE = "diario.revisao"
PUBLISH_QUEUE = "diario.publicacao"

# Well-known staff ids: the queues' default members. They exist as users only where someone
# created them (``tramita demo``, tests); production manages membership in the admin.
AUTHOR_ID = "0190d1a0-0000-7000-8000-00000000d101"
REVIEWER_ID = "0190d1a0-0000-7000-8000-00000000d102"
APPROVER_ID = "0190d1a0-0000-7000-8000-00000000d103"
QUEUES: dict[str, tuple[str, tuple[str, ...]]] = {
    REVIEW_QUEUE: ("Diário Oficial — revisão", (REVIEWER_ID, APPROVER_ID)),
    PUBLISH_QUEUE: ("Diário Oficial — aprovação e publicação", (REVIEWER_ID, APPROVER_ID)),
}
PROFILES: dict[str, tuple[str, ...]] = {
    "diario.redacao": ("diario.write",),
    "diario.revisao": ("diario.review", "diario.approve", "diario.publish"),
}

FORMS: tuple[dict[str, Any], ...] = (
    {
        "format": 1,
        "key": "diario.review",
        "version": 1,
        "title": "Revisão da matéria",
        "fields": [{"id": "review_note", "type": "long_text", "label": "Observações"}],
    },
    {
        "format": 1,
        "key": "diario.approve",
        "version": 1,
        "title": "Aprovação para publicação",
        "fields": [{"id": "approval_note", "type": "long_text", "label": "Observações"}],
    },
)

PUBLICACAO: dict[str, Any] = {
    "format": 1,
    "key": "diario.publicacao",
    "name": "Diário Oficial — publicação de ato",
    "protocol_prefix": "DOM",
    "subject_type": "diario.act",
    "searchable": ["act_id"],
    "nodes": [
        {"id": "submitted", "type": "start", "produces": ["act_id"], "next": "review"},
        {
            "id": "review",
            "type": "approval",
            "name": "Revisar",
            "queue": REVIEW_QUEUE,
            "form": "diario.review@1",
            "consumes": ["act_id"],
            "produces": ["review_note"],
            "policy": {"exclude_author": True},
            "public": {"label": "Em revisão"},
            "outcomes": {"approve": "approve", "reject": "rejected"},
            "outcome_names": {"approve": "Enviar para aprovação", "reject": "Rejeitar o ato"},
        },
        {
            "id": "approve",
            "type": "approval",
            "name": "Aprovar",
            "queue": PUBLISH_QUEUE,
            "form": "diario.approve@1",
            "consumes": ["act_id"],
            "produces": ["approval_note"],
            "policy": {"exclude_author": True, "exclude_completers_of": ["review"]},
            "outcomes": {"approve": "publish", "reject": "rejected"},
            "outcome_names": {"approve": "Aprovar a publicação", "reject": "Rejeitar o ato"},
        },
        {
            "id": "publish",
            "type": "service_task",
            "name": "Publicar na edição do dia",
            "handler": "diario.publish",
            "consumes": ["act_id"],
            "produces": ["edition_number", "published_on"],
            "failure": {"pending_queue": PUBLISH_QUEUE},
            "public": {"label": "Aprovado"},
            "next": "published",
        },
        {"id": "published", "type": "end", "public": {"label": "Publicado"}},
        {"id": "rejected", "type": "end", "result": "rejected", "public": {"label": "Rejeitado"}},
    ],
}

NODE_STATUS: dict[str, ActStatus] = {
    "review": ActStatus.REVIEW,
    "publish": ActStatus.APPROVED,
    "published": ActStatus.PUBLISHED,
    "rejected": ActStatus.REJECTED,
}
"""Which legal status the act takes when the flow enters a node (others leave it as it is)."""
