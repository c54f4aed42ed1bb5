"""``esic.pedido`` (Lei 12.527/2011) and ``ouvidoria.manifestacao`` (Lei 13.460/2017) as data.

e-SIC: 20 days to answer (``lai.request``), one 10-day extension with a justification (the
``extend`` outcome of the analysis task) counted from the deadline in force, the citizen's
10-day appeal window (``lai.appeal_window``), 5 days per appeal decision
(``lai.appeal_decision``), then closure. A request not answered in time opens a 10-day window
for a reclamação (``lai.complaint_window``), decided in 5 days (``lai.complaint_decision``).
The rules are data in ``modules/esic/legal.py``. Routing: an exclusive gateway sends the
request to its sector's queue. The citizen is e-mailed at each public transition by
notification nodes. Ouvidoria: 30 days to answer, extendable once by 30
(``ouvidoria.manifestation``).
"""

from __future__ import annotations

from typing import Any

from modules.esic.config import DEFAULT_APPEAL_INSTANCES
from modules.esic.domain import (
    APPEALS,
    APPEALS_ANSWERED,
    MAX_APPEAL_INSTANCES,
    CaseStatus,
    RequestStatus,
)
from modules.esic.forms import (
    ANALYSIS_FORM,
    ANSWER_FIELDS,
    ANSWER_FORM,
    APPEAL_FIELDS,
    APPEAL_FORM,
)

SECTORS: dict[str, str] = {"saude": "Saúde", "educacao": "Educação", "geral": "Gabinete"}
APPEAL_QUEUES = ("esic.recurso1", "esic.recurso2", "esic.recurso3", "esic.recurso4")
APPEAL_1_QUEUE, APPEAL_2_QUEUE = APPEAL_QUEUES[:2]
APPEAL_AUTHORITIES = (
    "autoridade hierarquicamente superior",  # Decreto 7.724/2012, art. 21
    "autoridade máxima do órgão",  # Decreto 7.724/2012, art. 21, parágrafo único
    "CGU",  # LAI, art. 16; Decreto 7.724/2012, art. 23
    "CMRI",  # LAI, art. 16, § 3º, e art. 35; Decreto 7.724/2012, art. 24
)
"""Who decides appeal instance k in the federal chain; a city names its own in the queues."""
COMPLAINT_QUEUE = "esic.reclamacao"  # the monitoring authority (Decreto 7.724/2012, art. 22)
OUVIDORIA_QUEUE = "ouvidoria.atendimento"
WAITING_QUEUE = "esic.aguardando_recurso"  # the citizen's turn: completed by the appeal signal

# Well-known staff ids: default queue members; users exist only where created (demo, tests).
ANALYST_ID = "0190d1a0-0000-7000-8000-00000000e101"
AUTHORITY_ID = "0190d1a0-0000-7000-8000-00000000e102"
MINISTER_ID = "0190d1a0-0000-7000-8000-00000000e103"
OMBUDSMAN_ID = "0190d1a0-0000-7000-8000-00000000e104"


def sector_queue(sector: str) -> str:
    return f"esic.setor.{sector}"


QUEUES: dict[str, tuple[str, tuple[str, ...]]] = {
    **{sector_queue(k): (f"e-SIC — {v}", (ANALYST_ID,)) for k, v in SECTORS.items()},
    APPEAL_1_QUEUE: ("e-SIC — recurso em 1ª instância", (AUTHORITY_ID,)),
    APPEAL_2_QUEUE: ("e-SIC — recurso em 2ª instância", (MINISTER_ID,)),
    # Default members are the demo's staff; a city sets its own (``tramita queue``).
    APPEAL_QUEUES[2]: ("e-SIC — recurso em 3ª instância (CGU)", (MINISTER_ID,)),
    APPEAL_QUEUES[3]: ("e-SIC — recurso em 4ª instância (CMRI)", (MINISTER_ID,)),
    COMPLAINT_QUEUE: ("e-SIC — reclamação por falta de resposta", (AUTHORITY_ID,)),
    OUVIDORIA_QUEUE: ("Ouvidoria — atendimento", (OMBUDSMAN_ID,)),
    WAITING_QUEUE: ("e-SIC — prazo de recurso do cidadão", ()),
}
PROFILES: dict[str, tuple[str, ...]] = {
    "esic.analista": ("esic.answer", "esic.manage"),
    "esic.autoridade": ("esic.appeal", "esic.requester"),
    "ouvidoria.ouvidor": ("ouvidoria.answer", "ouvidoria.requester"),
}


FAILURE = {"max_attempts": 8, "backoff_cap_s": 300.0, "on_validation_error": "fail"}


def _notify(
    node_id: str, handler: str, template: str, key: str, nxt: str, *also: str
) -> dict[str, Any]:
    """``also``: more context the e-mail states (the extension's justification)."""
    return {
        "id": node_id,
        "type": "notification",
        "handler": handler,
        "template": template,
        "consumes": [key, *also],
        "failure": FAILURE,
        "next": nxt,
    }


def _document(node_id: str, produced: str, nxt: str) -> dict[str, Any]:
    """The answer or an appeal decision as a PDF of the process (``modules/esic/documents``)."""
    return {
        "id": node_id,
        "type": "service_task",
        "handler": "esic.document",
        "consumes": ["request_id", produced],
        "failure": FAILURE,
        "next": nxt,
    }


def _task(
    node_id: str, name: str, queue: str, form: str, produces: list[str], **rest: Any
) -> dict[str, Any]:
    return {
        "id": node_id,
        "type": "user_task",
        "name": name,
        "queue": queue,
        "form": form,
        "consumes": ["request_id"],
        "produces": produces,
        **rest,
    }


def _expiry(
    rule: str, *, extension: bool = False, nxt: str = "notify_expired"
) -> list[dict[str, Any]]:
    deadline: dict[str, Any] = {"rule": rule}
    if extension:
        deadline["extension"] = True
    return [{"id": "deadline", "deadline": deadline, "next": nxt}]


def _sector_nodes(sector: str) -> list[dict[str, Any]]:
    q = sector_queue(sector)
    return [
        _task(
            f"analysis_{sector}",
            f"Analisar o pedido ({SECTORS[sector]})",
            q,
            ANALYSIS_FORM,
            ["answer", *ANSWER_FIELDS, "extension_reason"],
            timers=_expiry("lai.request", nxt="notify_late"),
            public={"label": "Em análise"},
            outcomes={"answer": "document_answer", "extend": f"notify_extended_{sector}"},
            outcome_requires={"answer": ["answer"], "extend": ["extension_reason"]},
        ),
        _notify(
            f"notify_extended_{sector}",
            "esic.notify",
            "esic.extended",
            "request_id",
            f"extended_{sector}",
            "extension_reason",  # LAI, art. 11, § 2º: the requester is told the justification
        ),
        _task(
            f"extended_{sector}",
            f"Responder no prazo prorrogado ({SECTORS[sector]})",
            q,
            ANSWER_FORM,
            ["answer", *ANSWER_FIELDS],
            timers=_expiry("lai.request", extension=True, nxt="notify_late"),
            public={"label": "Prazo prorrogado"},
            next="document_answer",
        ),
    ]


def _await_appeal(node_id: str, nxt: str, label: str) -> dict[str, Any]:
    # Completed by the citizen's appeal (a signal named after the node); 10 days, then closed.
    return {
        "id": node_id,
        "type": "manual_task",
        "name": "Aguardar recurso do requerente",
        "queue": WAITING_QUEUE,
        "timers": [
            {"id": "window", "deadline": {"rule": "lai.appeal_window"}, "next": "notify_closed"}
        ],
        "public": {"label": label},
        "next": nxt,
    }


def _appeal_chain(instances: int) -> list[dict[str, Any]]:
    """Instance k: the citizen's window (``await_appeal_k``), the decision (``appeal_k``, in
    queue ``esic.recursoK``), its notification; after the last one the request closes."""
    nodes: list[dict[str, Any]] = []
    for k in range(1, instances + 1):
        last = k == instances
        waiting = "Respondido" if k == 1 else f"Recurso de {k - 1}ª instância respondido"
        nodes.append(_await_appeal(f"await_appeal_{k}", f"appeal_{k}", waiting))
        nodes.append(
            _task(
                f"appeal_{k}",
                f"Decidir o recurso de {k}ª instância",
                APPEAL_QUEUES[k - 1],
                APPEAL_FORM,
                ["appeal_answer", *APPEAL_FIELDS],
                timers=_expiry("lai.appeal_decision"),
                public={"label": f"Recurso em {k}ª instância"},
                next=f"document_appeal_{k}",
            )
        )
        nodes.append(_document(f"document_appeal_{k}", "appeal_answer", f"notify_appeal_{k}"))
        notify = _notify(
            f"notify_appeal_{k}",
            "esic.notify",
            "esic.appeal_answered",
            "request_id",
            "notify_closed" if last else f"await_appeal_{k + 1}",
        )
        if last:
            notify["public"] = {"label": f"Recurso de {k}ª instância respondido"}
        nodes.append(notify)
    return nodes


def pedido(instances: int = DEFAULT_APPEAL_INSTANCES) -> dict[str, Any]:
    """``esic.pedido`` with ``instances`` appeal instances (1 to 4)."""
    if not 1 <= instances <= MAX_APPEAL_INSTANCES:
        raise ValueError("appeal instances must be 1 to 4")
    return {
        "format": 1,
        "key": "esic.pedido",
        "name": "e-SIC — pedido de acesso à informação",
        "protocol_prefix": "SIC",
        "subject_type": "esic.request",
        "searchable": ["sector"],
        "nodes": [
            {
                "id": "received",
                "type": "start",
                "produces": ["request_id", "sector"],
                "public": {"label": "Recebido"},
                "next": "notify_received",
            },
            _notify("notify_received", "esic.notify", "esic.received", "request_id", "route"),
            {
                "id": "route",
                "type": "exclusive",
                "consumes": ["sector"],
                "branches": [
                    {"when": f"sector == '{s}'", "next": f"analysis_{s}"}
                    for s in SECTORS
                    if s != "geral"
                ],
                "default": "analysis_geral",
            },
            *[n for s in SECTORS for n in _sector_nodes(s)],
            _document("document_answer", "answer", "notify_answered"),
            _notify(
                "notify_answered", "esic.notify", "esic.answered", "request_id", "await_appeal_1"
            ),
            *_appeal_chain(instances),
            _notify("notify_closed", "esic.notify", "esic.closed", "request_id", "closed"),
            {"id": "closed", "type": "end", "public": {"label": "Encerrado"}},
            # Not answered in time: the citizen may file a reclamação within 10 days, decided in 5
            # (Decreto 7.724/2012, art. 22); without one the request ends as expired.
            _notify("notify_late", "esic.notify", "esic.late", "request_id", "await_complaint"),
            {
                "id": "await_complaint",
                "type": "manual_task",
                "name": "Aguardar reclamação do requerente",
                "queue": WAITING_QUEUE,
                "timers": [
                    {
                        "id": "window",
                        "deadline": {"rule": "lai.complaint_window"},
                        "next": "expired",
                    }
                ],
                "public": {"label": "Prazo vencido"},
                "next": "complaint",
            },
            _task(
                "complaint",
                "Decidir a reclamação",
                COMPLAINT_QUEUE,
                ANSWER_FORM,
                ["answer", *ANSWER_FIELDS],
                timers=_expiry("lai.complaint_decision"),
                public={"label": "Reclamação"},
                next="document_answer",
            ),
            _notify("notify_expired", "esic.notify", "esic.expired", "request_id", "expired"),
            {
                "id": "expired",
                "type": "end",
                "result": "expired",
                "public": {"label": "Prazo vencido"},
            },
        ],
    }


PEDIDO = pedido()


def request_nodes(instances: int = DEFAULT_APPEAL_INSTANCES) -> dict[str, RequestStatus]:
    """Node -> legal status for a chain of ``instances`` appeals. Instance k is answered when
    the citizen's next window opens (``await_appeal_{k+1}``) or, after the last one, on its
    notification (the flow then closes)."""
    return {
        **{f"analysis_{s}": RequestStatus.ANALYSIS for s in SECTORS},
        **{f"extended_{s}": RequestStatus.EXTENDED for s in SECTORS},
        "await_appeal_1": RequestStatus.ANSWERED,
        **{f"appeal_{k}": APPEALS[k - 1] for k in range(1, instances + 1)},
        **{f"await_appeal_{k + 1}": APPEALS_ANSWERED[k - 1] for k in range(1, instances)},
        f"notify_appeal_{instances}": APPEALS_ANSWERED[instances - 1],
        "closed": RequestStatus.CLOSED,
        "await_complaint": RequestStatus.EXPIRED,
        "complaint": RequestStatus.COMPLAINT,
        "expired": RequestStatus.EXPIRED,
    }


REQUEST_NODES = request_nodes()

MANIFESTACAO: dict[str, Any] = {
    "format": 1,
    "key": "ouvidoria.manifestacao",
    "name": "Ouvidoria — manifestação",
    "protocol_prefix": "OUV",
    "subject_type": "ouvidoria.case",
    "searchable": ["kind"],
    "nodes": [
        {
            "id": "received",
            "type": "start",
            "produces": ["case_id", "kind"],
            "public": {"label": "Recebida"},
            "next": "notify_received",
        },
        _notify("notify_received", "ouvidoria.notify", "ouvidoria.received", "case_id", "answer"),
        {
            "id": "answer",
            "type": "user_task",
            "name": "Responder a manifestação",
            "queue": OUVIDORIA_QUEUE,
            "form": "ouvidoria.answer@1",
            "consumes": ["case_id", "kind"],
            "produces": ["answer", "extension_reason"],
            "timers": _expiry("ouvidoria.manifestation"),
            # A denunciation (irregularity, possible harm to the public) goes to the top of the
            # ombudsman's queue; the other kinds open at normal priority.
            "priority": {"when": "kind == 'denuncia'", "level": "high"},
            "public": {"label": "Em análise"},
            "outcomes": {"answer": "notify_answered", "extend": "notify_extended"},
            "outcome_names": {"answer": "Responder", "extend": "Prorrogar o prazo"},
            "outcome_requires": {"answer": ["answer"], "extend": ["extension_reason"]},
        },
        _notify(
            "notify_extended",
            "ouvidoria.notify",
            "ouvidoria.extended",
            "case_id",
            "extended",
            "extension_reason",
        ),
        {
            "id": "extended",
            "type": "user_task",
            "name": "Responder no prazo prorrogado",
            "queue": OUVIDORIA_QUEUE,
            "form": "ouvidoria.answer@1",
            "consumes": ["case_id"],
            "produces": ["answer"],
            "timers": _expiry("ouvidoria.manifestation", extension=True),
            "public": {"label": "Prazo prorrogado"},
            "next": "notify_answered",
        },
        _notify("notify_answered", "ouvidoria.notify", "ouvidoria.answered", "case_id", "answered"),
        {"id": "answered", "type": "end", "public": {"label": "Respondida"}},
        _notify("notify_expired", "ouvidoria.notify", "ouvidoria.expired", "case_id", "expired"),
        {"id": "expired", "type": "end", "result": "expired", "public": {"label": "Prazo vencido"}},
    ],
}

CASE_NODES: dict[str, CaseStatus] = {
    "answer": CaseStatus.ANALYSIS,
    "extended": CaseStatus.EXTENDED,
    "answered": CaseStatus.ANSWERED,
    "expired": CaseStatus.EXPIRED,
}
