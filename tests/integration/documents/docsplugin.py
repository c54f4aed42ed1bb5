"""A test plugin for documents: a process whose answer task needs an answer document."""

from __future__ import annotations

from typing import Any

from contracts.hookspecs import hookimpl

ANSWER_TEMPLATE = {
    "type": "doc",
    "content": [
        {
            "type": "heading",
            "attrs": {"level": 1},
            "content": [{"type": "text", "text": "Resposta"}],
        },
        {
            "type": "paragraph",
            "content": [
                {"type": "text", "text": "Prezado(a) "},
                {"type": "placeholder", "attrs": {"name": "requester.name"}},
                {"type": "text", "text": ", protocolo "},
                {"type": "placeholder", "attrs": {"name": "protocol"}, "marks": [{"type": "bold"}]},
                {"type": "text", "text": "."},
            ],
        },
    ],
}

ANSWER = {
    "key": "docs.answer",
    "name": "Resposta ao pedido",
    "unique_per_instance": True,
    "fields": ["requester.name", "protocol"],
    "template": ANSWER_TEMPLATE,
    "template_version": 1,
}
ATTACHMENT = {
    "key": "docs.attachment",
    "name": "Anexo",
    "digital": False,
    "max_bytes": 2000,
    "media_types": ["application/pdf", "image/png"],
}

SECRET = {
    "key": "docs.secret",
    "name": "Anexo sigiloso",
    "media_types": ["application/pdf"],
    "permissions": {"read": "docs.secret", "write": "docs.secret", "delete": "docs.secret"},
}

FLOW = {
    "format": 1,
    "key": "docs.flow",
    "name": "Pedido com resposta",
    "protocol_prefix": "DOC",
    "nodes": [
        {
            "id": "request",
            "type": "start",
            "produces": ["title", "protocol", "requester"],
            "next": "answer",
        },
        {
            "id": "answer",
            "type": "user_task",
            "name": "Responder",
            "queue": "docs.clerks",
            "documents": ["docs.answer"],
            "next": "done",
        },
        {"id": "done", "type": "end", "result": "completed"},
    ],
}


class DocsPlugin:
    @hookimpl
    def tramita_register_permissions(self, registry: Any) -> None:
        registry.add("docs.answer", "Answer requests")
        registry.add("docs.secret", "Read sigiloso annexes")

    @hookimpl
    def tramita_register_queues(self, registry: Any) -> None:
        registry.add("docs.clerks", "Clerks", permission="docs.answer")

    @hookimpl
    def tramita_register_document_types(self, registry: Any) -> None:
        registry.add(ANSWER)
        registry.add(ATTACHMENT)
        registry.add(SECRET)

    @hookimpl
    def tramita_register_workflows(self, registry: Any) -> None:
        registry.add(FLOW)
