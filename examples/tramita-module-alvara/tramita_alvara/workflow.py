"""``alvara.licenca`` as data, with its form, queues and permissions.

The flow: the request is checked by rules, a licensing officer analyses it (a form with the
technical opinion), the municipal tax system issues the fee slip (a service task on the
module's own worker queue ``alvara.tributos``), and the licence is issued with its number.
"""

from __future__ import annotations

from typing import Any

from tramita_alvara.domain import LicenceStatus

DEFINITION_KEY = "alvara.licenca"
SUBJECT_TYPE = "alvara.licence"
ANALYSIS_QUEUE = "alvara.analise"
OPERATORS_QUEUE = "alvara.operadores"
TAX_QUEUE = "alvara.tributos"
"""A worker queue, not a human one: ``tramita worker --queue alvara.tributos`` serves it, so a
slow tax system never holds the engine's shared ``integration`` queue back."""
ACTIVITIES = ("comercio", "servicos", "industria")
"""The activities the (fictional) zoning law allows; the ``check`` rule lists the same."""

PERMISSIONS: dict[str, str] = {
    "alvara.request": "Request operating licences",
    "alvara.analyse": "Analyse operating licence requests",
}
QUEUES: dict[str, tuple[str, str]] = {
    ANALYSIS_QUEUE: ("Alvará — análise técnica", "alvara.analyse"),
    OPERATORS_QUEUE: ("Alvará — pendências de integração", "alvara.analyse"),
    TAX_QUEUE: ("Alvará — sistema tributário (worker)", "alvara.analyse"),
}

FORMS: tuple[dict[str, Any], ...] = (
    {
        "format": 1,
        "key": "alvara.parecer",
        "version": 1,
        "title": "Parecer técnico do alvará",
        "fields": [
            {
                "id": "parecer",
                "type": "long_text",
                "label": "Parecer técnico",
                "required": True,
                "max_length": 4000,
            },
            {"id": "vistoria", "type": "boolean", "label": "Vistoria realizada no local"},
        ],
    },
)

FAILURE: dict[str, Any] = {
    "max_attempts": 5,
    "backoff_base_s": 1.0,
    "backoff_cap_s": 30.0,
    "timeout_s": 20.0,
    "pending_queue": OPERATORS_QUEUE,
}

LICENCA: dict[str, Any] = {
    "format": 1,
    "key": DEFINITION_KEY,
    "name": "Alvará de funcionamento",
    "description": "Pedido de alvará de funcionamento: análise técnica, taxa e emissão.",
    "protocol_prefix": "ALV",
    "subject_type": SUBJECT_TYPE,
    "nodes": [
        {
            "id": "requested",
            "type": "start",
            "name": "Pedido recebido",
            "produces": ["licence_id", "activity", "area_m2"],
            "public": {"label": "Recebido"},
            "next": "check",
        },
        {
            "id": "check",
            "type": "validation",
            "name": "Conferência do pedido",
            "consumes": ["activity", "area_m2"],
            "rules": [
                {
                    "id": "known_activity",
                    "expr": "activity in ['comercio', 'servicos', 'industria']",
                    "message": "Atividade não prevista na lei de uso do solo.",
                },
                {
                    "id": "positive_area",
                    "expr": "area_m2 > 0",
                    "message": "A área do estabelecimento deve ser maior que zero.",
                },
            ],
            "failure": {"pending_queue": OPERATORS_QUEUE},
            "next": "analysis",
        },
        {
            "id": "analysis",
            "type": "approval",
            "name": "Análise técnica",
            "queue": ANALYSIS_QUEUE,
            "form": "alvara.parecer@1",
            "consumes": ["licence_id", "activity", "area_m2"],
            "produces": ["parecer", "vistoria"],
            "policy": {"exclude_author": True},
            "public": {"label": "Em análise"},
            "outcomes": {"approve": "fee", "reject": "rejected"},
            "outcome_names": {"approve": "Deferir", "reject": "Indeferir"},
        },
        {
            "id": "fee",
            "type": "service_task",
            "name": "Emissão da taxa de licença",
            "handler": "alvara.fee",
            "queue": TAX_QUEUE,
            "consumes": ["licence_id", "area_m2"],
            "produces": ["fee_slip"],
            "failure": FAILURE,
            "public": {"label": "Taxa emitida"},
            "next": "issue",
        },
        {
            "id": "issue",
            "type": "service_task",
            "name": "Emissão do alvará",
            "handler": "alvara.issue",
            "consumes": ["licence_id", "fee_slip"],
            "produces": ["licence_number"],
            "failure": FAILURE,
            "next": "issued",
        },
        {"id": "issued", "type": "end", "name": "Alvará emitido", "public": {"label": "Emitido"}},
        {
            "id": "rejected",
            "type": "end",
            "name": "Pedido indeferido",
            "result": "rejected",
            "public": {"label": "Indeferido"},
        },
    ],
}

NODE_STATUS: dict[str, LicenceStatus] = {
    "analysis": LicenceStatus.UNDER_REVIEW,
    "fee": LicenceStatus.APPROVED,
    "issued": LicenceStatus.ISSUED,
    "rejected": LicenceStatus.REJECTED,
}
"""The node an instance enters -> the licence's legal status (the subject listener applies it)."""
