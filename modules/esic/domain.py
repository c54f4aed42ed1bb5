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
    APPEAL_3 = "appeal_3"
    APPEAL_3_ANSWERED = "appeal_3_answered"
    APPEAL_4 = "appeal_4"
    APPEAL_4_ANSWERED = "appeal_4_answered"
    CLOSED = "closed"
    EXPIRED = "expired"
    COMPLAINT = "complaint"
    """A reclamação for the missing answer (Decreto 7.724/2012, art. 22) is being decided."""


R = RequestStatus
MAX_APPEAL_INSTANCES = 4
APPEALS = (R.APPEAL_1, R.APPEAL_2, R.APPEAL_3, R.APPEAL_4)
APPEALS_ANSWERED = (
    R.APPEAL_1_ANSWERED,
    R.APPEAL_2_ANSWERED,
    R.APPEAL_3_ANSWERED,
    R.APPEAL_4_ANSWERED,
)
"""Appeal instance k (1..4) is decided in ``APPEALS[k - 1]`` and answered in
``APPEALS_ANSWERED[k - 1]``; how many a city runs is configuration (``modules/esic/config.py``)."""
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
        R.APPEAL_2_ANSWERED: frozenset({R.APPEAL_3, R.CLOSED}),
        R.APPEAL_3: frozenset({R.APPEAL_3_ANSWERED, R.EXPIRED}),
        R.APPEAL_3_ANSWERED: frozenset({R.APPEAL_4, R.CLOSED}),
        R.APPEAL_4: frozenset({R.APPEAL_4_ANSWERED, R.EXPIRED}),
        R.APPEAL_4_ANSWERED: frozenset({R.CLOSED}),
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
