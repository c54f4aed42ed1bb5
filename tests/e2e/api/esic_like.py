"""An e-SIC-like test plugin: a citizen's request carrying personal data, internal node names."""

from __future__ import annotations

from typing import Any

from contracts.hookspecs import hookimpl
from contracts.workflow.legal import LegalRule

RULE = LegalRule(
    key="esic_like.request",
    name="Resposta ao pedido (teste)",
    counting="calendar",
    days=20,
    max_extensions=1,
    extension_days=10,
    legal_basis="Lei 12.527/2011, art. 11",
)

DEFINITION: dict[str, Any] = {
    "format": 1,
    "key": "esic_like.request",
    "name": "Pedido de acesso à informação (teste)",
    "protocol_prefix": "SIC",
    "searchable": ["orgao"],
    "personal": ["cpf", "nome", "email"],
    "nodes": [
        {
            "id": "pedido_recebido",
            "type": "start",
            "name": "Pedido protocolado pelo cidadão",
            "produces": ["cpf", "nome", "email", "pedido", "orgao"],
            "public": {"label": "Recebido"},
            "next": "triagem_setor_juridico",
        },
        {
            "id": "triagem_setor_juridico",
            "type": "user_task",
            "name": "Triagem interna do Setor Jurídico",
            "queue": "esic_like.juridico",
            "produces": ["resposta"],
            "public": {"label": "Em análise"},
            "timers": [
                {
                    "id": "prazo",
                    "deadline": {"rule": "esic_like.request"},
                    "next": "resposta_enviada",
                }
            ],
            "next": "resposta_enviada",
        },
        {
            "id": "resposta_enviada",
            "type": "end",
            "name": "Resposta enviada pela Controladoria",
            "public": {"label": "Respondido"},
        },
    ],
}

PERSONAL = {
    "cpf": "529.982.247-25",
    "nome": "Joana Pereira da Silva",
    "email": "joana.pereira@example.org",
    "pedido": "Quero saber os gastos com merenda escolar",
    "orgao": "educacao",
}


class EsicLikePlugin:
    @hookimpl
    def tramita_register_queues(self, registry: Any) -> None:
        registry.add("esic_like.juridico", "Setor Jurídico")

    @hookimpl
    def tramita_register_deadline_rules(self, registry: Any) -> None:
        registry.add(RULE)

    @hookimpl
    def tramita_register_workflows(self, registry: Any) -> None:
        registry.add(DEFINITION)
