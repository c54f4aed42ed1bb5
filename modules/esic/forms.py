"""The forms of e-SIC and Ouvidoria tasks, with the classification the LAI statistics count.

An answer says what was decided (``decision``: access granted, partly granted, denied...) and,
when access is refused in whole or in part, on which ground (``denial_reason``); an appeal
decision says how the appeal ended (``appeal_decision``). The codes follow the categories of
the CGU's open data on the e-SIC (``docs/esic-statistics.md``); they are optional so that an
answer given without them still completes, and is counted as "não informado".
"""

from __future__ import annotations

from typing import Any

DECISIONS: dict[str, str] = {
    "concedido": "Acesso concedido",
    "parcial": "Acesso parcialmente concedido",
    "negado": "Acesso negado",
    "inexistente": "Informação inexistente",
    "nao_competente": "Órgão não tem competência para responder",
    "nao_e_pedido": "Não se trata de solicitação de informação",
    "duplicado": "Pergunta duplicada/repetida",
}
DENIALS = ("parcial", "negado")
"""Decisions that refuse access in whole or in part: they name a ground."""
DENIAL_REASONS: dict[str, str] = {
    "dados_pessoais": "Dados pessoais (LAI, art. 31)",
    "sigilo_classificado": "Informação classificada (LAI, arts. 23 e 24)",
    "sigilo_legal": "Sigilo previsto em legislação específica (LAI, art. 22)",
    "processo_decisorio": "Processo decisório em curso (LAI, art. 7º, § 3º)",
    "generico": "Pedido genérico (Decreto 7.724/2012, art. 13, I)",
    "desproporcional": "Pedido desproporcional ou desarrazoado (Decreto 7.724/2012, art. 13, II)",
    "trabalho_adicional": "Exige trabalho adicional de análise (Decreto 7.724/2012, art. 13, III)",
    "outro": "Outro fundamento legal",
}
APPEAL_DECISIONS: dict[str, str] = {
    "deferido": "Deferido",
    "parcial": "Parcialmente deferido",
    "indeferido": "Indeferido",
    "nao_conhecido": "Não conhecido",
    "perda_objeto": "Perda de objeto",
}
ANSWER_FIELDS = ("decision", "denial_reason")
APPEAL_FIELDS = ("appeal_decision",)

ANALYSIS_FORM = "esic.analysis@2"
ANSWER_FORM = "esic.answer@2"
APPEAL_FORM = "esic.appeal@2"


def _text(field: str) -> dict[str, Any]:
    return {"id": field, "type": "long_text", "label": field}


def _select(field: str, label: str, options: dict[str, str]) -> dict[str, Any]:
    return {
        "id": field,
        "type": "select",
        "label": label,
        "options": [{"value": k, "label": v} for k, v in options.items()],
    }


def _form(key: str, version: int, title: str, *fields: dict[str, Any]) -> dict[str, Any]:
    return {"format": 1, "key": key, "version": version, "title": title, "fields": list(fields)}


_DECISION = _select("decision", "Decisão", DECISIONS)
_DENIAL = _select("denial_reason", "Fundamento da negativa", DENIAL_REASONS)
FORMS = (
    _form(
        "esic.analysis",
        2,
        "Resposta ao pedido",
        _text("answer"),
        _DECISION,
        _DENIAL,
        _text("extension_reason"),
    ),
    _form("esic.answer", 2, "Resposta ao pedido (prorrogado)", _text("answer"), _DECISION, _DENIAL),
    _form(
        "esic.appeal",
        2,
        "Decisão do recurso",
        _text("appeal_answer"),
        _select("appeal_decision", "Resultado do recurso", APPEAL_DECISIONS),
    ),
    _form(
        "ouvidoria.answer", 1, "Resposta à manifestação", _text("answer"), _text("extension_reason")
    ),
)
