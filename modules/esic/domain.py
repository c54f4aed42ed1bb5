"""Legal statuses of an information request and of an ombudsman case, usable without the
workflow engine (plain mode); with the engine installed the flow drives the same statuses."""

from __future__ import annotations

from enum import StrEnum

from core.statuses import StatusMachine


class RequestStatus(StrEnum):
    RECEIVED = "received"
    ANALYSIS = "analysis"
    EXTENDED = "extended"
    ANSWERED = "answered"
    APPEAL_1 = "appeal_1"
    APPEAL_1_ANSWERED = "appeal_1_answered"
    APPEAL_2 = "appeal_2"
    APPEAL_2_ANSWERED = "appeal_2_answered"
    CLOSED = "closed"
    EXPIRED = "expired"
    COMPLAINT = "complaint"
    """A reclamação for the missing answer (Decreto 7.724/2012, art. 22) is being decided."""


R = RequestStatus
REQUEST_STATUS = StatusMachine(
    "esic.request",
    {
        R.RECEIVED: frozenset({R.ANALYSIS}),
        R.ANALYSIS: frozenset({R.ANSWERED, R.EXTENDED, R.EXPIRED}),
        R.EXTENDED: frozenset({R.ANSWERED, R.EXPIRED}),
        R.ANSWERED: frozenset({R.APPEAL_1, R.CLOSED}),
        R.APPEAL_1: frozenset({R.APPEAL_1_ANSWERED, R.EXPIRED}),
        R.APPEAL_1_ANSWERED: frozenset({R.APPEAL_2, R.CLOSED}),
        R.APPEAL_2: frozenset({R.APPEAL_2_ANSWERED, R.EXPIRED}),
        R.APPEAL_2_ANSWERED: frozenset({R.CLOSED}),
        R.EXPIRED: frozenset({R.COMPLAINT}),
        R.COMPLAINT: frozenset({R.ANSWERED, R.EXPIRED}),
    },
    initial=R.RECEIVED,
)


class ManifestationKind(StrEnum):
    COMPLAINT = "reclamacao"
    SUGGESTION = "sugestao"
    PRAISE = "elogio"
    REQUEST = "solicitacao"
    DENUNCIATION = "denuncia"


class CaseStatus(StrEnum):
    RECEIVED = "received"
    ANALYSIS = "analysis"
    EXTENDED = "extended"
    ANSWERED = "answered"
    EXPIRED = "expired"


C = CaseStatus
CASE_STATUS = StatusMachine(
    "ouvidoria.case",
    {
        C.RECEIVED: frozenset({C.ANALYSIS}),
        C.ANALYSIS: frozenset({C.ANSWERED, C.EXTENDED, C.EXPIRED}),
        C.EXTENDED: frozenset({C.ANSWERED, C.EXPIRED}),
    },
    initial=C.RECEIVED,
)
