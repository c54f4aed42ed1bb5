"""An e-SIC-like test plugin: a citizen's request carrying personal data, internal node names."""

from __future__ import annotations

from typing import Any

from contracts.hookspecs import hookimpl

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
    def tramita_register_workflows(self, registry: Any) -> None:
        registry.add(DEFINITION)
