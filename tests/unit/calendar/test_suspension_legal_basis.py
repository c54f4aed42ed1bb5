"""Sobrestamento: the legal basis travels with the suspension event, its audit and replay."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import msgspec
import pytest

from services.workflow.calendar import (
    ESIC_REQUEST,
    Calendar,
    Deadline,
    DeadlineInputInvalid,
    replay,
    resume,
    start_deadline,
    suspend,
)
from services.workflow.calendar.model import DeadlineEvent, Suspension

SP = ZoneInfo("America/Sao_Paulo")
BASIS = "Decreto 9.492/2018, art. 18"


def _at(month: int, day: int) -> datetime:
    return datetime(2027, month, day, 12, tzinfo=SP)


def _esic(calendar: Calendar) -> Deadline:
    return start_deadline(ESIC_REQUEST, calendar, _at(3, 1))


def test_the_legal_basis_is_kept_in_the_event_and_the_audit(es: Calendar) -> None:
    stopped, audit = suspend(
        _esic(es), es, at=_at(3, 5), reason="complement", actor="u-1", legal_basis=f" {BASIS} "
    )
    (event,) = stopped.events
    assert isinstance(event, Suspension) and event.legal_basis == BASIS
    assert (audit.legal_basis, audit.reason) == (BASIS, "complement")
    resumed, audit = resume(stopped, es, at=_at(3, 15), actor="u-1")
    assert audit.legal_basis is None
    assert replay(ESIC_REQUEST, es, _at(3, 1), resumed.events) == resumed


def test_a_blank_legal_basis_is_refused_with_the_field_named(es: Calendar) -> None:
    with pytest.raises(DeadlineInputInvalid) as caught:
        suspend(_esic(es), es, at=_at(3, 5), reason="complement", actor="u-1", legal_basis=" ")
    assert [(e.path, e.code) for e in caught.value.errors] == [("legal_basis", "required")]


def test_an_event_log_written_before_the_legal_basis_existed_still_reads() -> None:
    old = {"kind": "suspension", "at": "2027-03-05T12:00:00-03:00", "reason": "x", "actor": "u"}
    (event,) = msgspec.convert([old], list[DeadlineEvent])
    assert isinstance(event, Suspension) and event.legal_basis is None
