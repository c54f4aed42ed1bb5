"""What each deadline tells about itself: the receipt, the closed days that moved it, an
extension with its justification and a suspension — and what the citizen's version leaves out."""

from __future__ import annotations

from datetime import UTC, date, datetime

from services.workflow.calendar import Calendar, DeadlineRule, Extension, Resumption, Suspension
from services.workflow.runtime.ports.deadlines import DeadlineView
from services.workflow.runtime.services.legal_time import CountedDeadline
from services.workflow.ui.deadline_story import stories

RULE = DeadlineRule(unit="calendar_days", days=20, max_extensions=1, extension_days=10)


def _counted(es: Calendar, **fields: object) -> CountedDeadline:
    values: dict[str, object] = {
        "rule": "lai.request",
        "rule_name": "Pedido de acesso",
        "legal_basis": "Lei 12.527/2011, art. 11",
        "counting": "calendar",
        "days": 20,
        # Friday 04/12/2026 at 20:00 in Brasília: after the 19:00 cut-off.
        "filed_at": datetime(2026, 12, 4, 23, 0, tzinfo=UTC),
        "received_at": es.end_of_day(date(2026, 12, 6)),
        "received_on": date(2026, 12, 7),
        "start_on": date(2026, 12, 7),
        "nominal_end": date(2026, 12, 27),
        "due_on": date(2026, 12, 28),
        "due_at": es.end_of_day(date(2026, 12, 28)),
        "moved": [{"day": "2026-12-27", "why": ["fim de semana"]}],
        "extends": None,
        "calendar_key": es.key,
        "calendar_version": 1,
        "explanation": [],
        "node": "triagem",
        "timer": "prazo",
        **fields,
    }
    return CountedDeadline(**values)  # type: ignore[arg-type]


def _tracked(es: Calendar, *events: object, due: date) -> DeadlineView:
    return DeadlineView(
        instance_id="i",
        name="prazo",
        rule=RULE,
        status="running",
        started_at=datetime(2026, 12, 7, 3, 0, tzinfo=UTC),
        due_at=es.end_of_day(due),
        calendar_key=es.key,
        calendar_version=1,
        calendar_checksum="x",
        extensions_used=1,
        remaining_units=0,
        overdue=False,
        events=events,  # type: ignore[arg-type]
    )


def test_a_filing_after_the_cutoff_and_a_sunday_end_are_told(es: Calendar) -> None:
    (story,) = stories([_counted(es)], [], es)
    assert story.receipt_moved == "after_cutoff"
    assert story.rolled is True
    assert [(m.day, m.weekend, m.holidays) for m in story.moved] == [(date(2026, 12, 27), True, ())]
    assert story.legal_basis == "Lei 12.527/2011, art. 11"


def test_a_filing_on_saturday_is_received_on_a_closed_day(es: Calendar) -> None:
    saturday = datetime(2026, 12, 5, 15, 0, tzinfo=UTC)
    (story,) = stories([_counted(es, filed_at=saturday)], [], es)
    assert story.receipt_moved == "closed_day"


def test_an_extension_and_a_pause_go_with_the_deadline_in_force(es: Calendar) -> None:
    suspended = Suspension(
        at=datetime(2026, 12, 10, 15, 0, tzinfo=UTC), reason="complemento", actor="a"
    )
    resumed = Resumption(at=datetime(2026, 12, 14, 15, 0, tzinfo=UTC), actor="a")
    extended = Extension(
        days=10,
        justification="Busca em arquivo",
        actor="a",
        at=datetime(2026, 12, 20, 15, 0, tzinfo=UTC),
    )
    first = _counted(es)
    second = _counted(es, extends=date(2026, 12, 28), days=10, due_on=date(2027, 1, 7))
    tracked = _tracked(es, suspended, resumed, extended, due=date(2027, 1, 11))
    old, current = stories([first, second], [tracked], es)
    assert (old.extensions, old.pauses) == ((), ())
    (pause,) = current.pauses
    assert (pause.since, pause.until, pause.days, pause.reason) == (
        date(2026, 12, 10),
        date(2026, 12, 14),
        4,
        "complemento",
    )
    (extension,) = current.extensions
    assert (extension.days, extension.justification) == (10, "Busca em arquivo")
    assert current.due_on == date(2027, 1, 11)


def test_the_citizens_version_leaves_out_reasons_and_legal_text_but_keeps_justifications(
    es: Calendar,
) -> None:
    suspended = Suspension(
        at=datetime(2026, 12, 10, 15, 0, tzinfo=UTC), reason="interno", actor="a"
    )
    extended = Extension(
        days=10, justification="interno", actor="a", at=datetime(2026, 12, 20, 15, 0, tzinfo=UTC)
    )
    tracked = _tracked(es, suspended, extended, due=date(2027, 1, 7))
    (story,) = stories([_counted(es)], [tracked], es, public=True)
    assert story.legal_basis is None
    assert [p.reason for p in story.pauses] == [None]
    assert [p.until for p in story.pauses] == [None]  # still suspended
    # The requester is told why the deadline was extended (Lei 12.527/2011, art. 11, § 2º).
    assert [e.justification for e in story.extensions] == ["interno"]


def test_an_extension_granted_by_a_clerk_tells_its_justification_to_the_citizen(
    es: Calendar,
) -> None:
    first = _counted(es)
    granted = _counted(
        es,
        days=10,
        filed_at=None,
        received_at=None,
        received_on=None,
        start_on=date(2026, 12, 28),
        nominal_end=date(2027, 1, 7),
        due_on=date(2027, 1, 7),
        due_at=es.end_of_day(date(2027, 1, 7)),
        moved=[],
        extends=date(2026, 12, 28),
        justification="Consolidação de dados",
        decided_at=datetime(2026, 12, 21, 13, 0, tzinfo=UTC),
    )
    kept = _counted(es, days=0, extends=date(2027, 1, 7), due_on=date(2027, 1, 7))
    told = stories([first, granted, kept], [], es, public=True)
    assert len(told) == 2
    (extension,) = told[1].extensions
    assert (extension.days, extension.on, extension.justification) == (
        10,
        date(2026, 12, 21),
        "Consolidação de dados",
    )
    assert told[1].due_on == date(2027, 1, 7)
