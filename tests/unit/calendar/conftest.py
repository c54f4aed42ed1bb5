"""Calendars used by the legal-deadline tests: Espírito Santo, and Vitória (ES) on top of it."""

from __future__ import annotations

import pytest

from services.workflow.calendar import AnnualHoliday, Calendar, CalendarSpec, seal_spec

VITORIA_ANNIVERSARY = AnnualHoliday(name="Aniversário de Vitória", month=9, day=8)


def _calendar(key: str, **fields: object) -> Calendar:
    spec = CalendarSpec(key=key, version=1, subdivision="ES", **fields)  # type: ignore[arg-type]
    return Calendar.from_spec(seal_spec(spec))


@pytest.fixture
def es() -> Calendar:
    """Espírito Santo, national and state holidays only; facultative days are business days."""
    return _calendar("br-es")


@pytest.fixture
def vitoria() -> Calendar:
    """Vitória/ES with its city anniversary (8 September); facultative days are business days."""
    return _calendar("br-es-vitoria", municipal_holidays=(VITORIA_ANNIVERSARY,))


@pytest.fixture
def vitoria_with_carnival() -> Calendar:
    """Vitória/ES closing on Carnival Monday and Tuesday (ponto facultativo adopted)."""
    return _calendar(
        "br-es-vitoria",
        municipal_holidays=(VITORIA_ANNIVERSARY,),
        facultative=("Carnival",),
    )
