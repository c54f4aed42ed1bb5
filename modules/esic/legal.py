"""The legal deadline rules of e-SIC (LAI) and Ouvidoria (Lei 13.460/2017), as data.

Days are calendar days ("dias corridos", Lei 9.784/1999, art. 66, §2º) with the start day
excluded and a last day without office hours moved to the next business day (art. 66, §1º).
A city whose decree says otherwise overrides a rule by configuration (docs/deadlines.md).
"""

from __future__ import annotations

from contracts.workflow.legal import LegalRule

LAI_REQUEST = LegalRule(
    key="lai.request",
    name="Resposta ao pedido de acesso à informação",
    counting="calendar",
    days=20,
    max_extensions=1,
    extension_days=10,
    legal_basis="Lei 12.527/2011, art. 11, §§ 1º e 2º; Decreto 7.724/2012, arts. 15 e 16",
)
LAI_APPEAL_WINDOW = LegalRule(
    key="lai.appeal_window",
    name="Prazo do requerente para recorrer",
    counting="calendar",
    days=10,
    counts_from="start",
    legal_basis="Lei 12.527/2011, art. 15, caput",
)
LAI_APPEAL_DECISION = LegalRule(
    key="lai.appeal_decision",
    name="Decisão do recurso",
    counting="calendar",
    days=5,
    legal_basis="Lei 12.527/2011, art. 15, parágrafo único; Decreto 7.724/2012, arts. 21 a 24",
)
LAI_COMPLAINT_WINDOW = LegalRule(
    key="lai.complaint_window",
    name="Prazo do requerente para reclamar da falta de resposta",
    counting="calendar",
    days=10,
    counts_from="start",
    legal_basis="Decreto 7.724/2012, art. 22",
)
LAI_COMPLAINT_DECISION = LegalRule(
    key="lai.complaint_decision",
    name="Manifestação da autoridade de monitoramento sobre a reclamação",
    counting="calendar",
    days=5,
    legal_basis="Decreto 7.724/2012, art. 22",
)
OUVIDORIA_MANIFESTATION = LegalRule(
    key="ouvidoria.manifestation",
    name="Resposta à manifestação de ouvidoria",
    counting="calendar",
    days=30,
    max_extensions=1,
    extension_days=30,
    legal_basis="Lei 13.460/2017, art. 16",
)

RULES = (
    LAI_REQUEST,
    LAI_APPEAL_WINDOW,
    LAI_APPEAL_DECISION,
    LAI_COMPLAINT_WINDOW,
    LAI_COMPLAINT_DECISION,
    OUVIDORIA_MANIFESTATION,
)
