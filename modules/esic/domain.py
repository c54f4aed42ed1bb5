"""Legal statuses of an information request, usable without the workflow engine."""

from __future__ import annotations

from enum import StrEnum

from core.statuses import StatusMachine


class RequestStatus(StrEnum):
    RECEIVED = "received"
    ANALYSIS = "analysis"
    ANSWERED = "answered"
    APPEAL_1 = "appeal_1"
    APPEAL_1_ANSWERED = "appeal_1_answered"
    APPEAL_2 = "appeal_2"
    APPEAL_2_ANSWERED = "appeal_2_answered"
    CLOSED = "closed"


R = RequestStatus
REQUEST_STATUS = StatusMachine(
    "esic.request",
    {
        R.RECEIVED: frozenset({R.ANALYSIS}),
        R.ANALYSIS: frozenset({R.ANSWERED}),
        R.ANSWERED: frozenset({R.APPEAL_1, R.CLOSED}),
        R.APPEAL_1: frozenset({R.APPEAL_1_ANSWERED}),
        R.APPEAL_1_ANSWERED: frozenset({R.APPEAL_2, R.CLOSED}),
        R.APPEAL_2: frozenset({R.APPEAL_2_ANSWERED}),
        R.APPEAL_2_ANSWERED: frozenset({R.CLOSED}),
    },
    initial=R.RECEIVED,
)
