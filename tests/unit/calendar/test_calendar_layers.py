"""Calendar layers (national, state, municipal, optional, decree) and the dated pontos
facultativos a city decrees each year with its decision: closed or kept open, the year
boundary, a state calendar change reaching the cities built on it, and format 1 specs kept."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import msgspec
import pytest

from modules.esic.legal import LAI_REQUEST
from services.workflow.calendar import (
    AnnualHoliday,
    Calendar,
    CalendarMismatch,
    CalendarRevisionInvalid,
    CalendarSpec,
    CalendarSpecInvalid,
    DatedHoliday,
    OptionalDay,
    StateLayer,
    follow_state,
    revise,
    seal_spec,
    verify_spec,
)
from services.workflow.calendar.legal import count_legal, explain, why_closed

BRT = ZoneInfo("America/Sao_Paulo")
AT = datetime(2027, 1, 4, 12, tzinfo=UTC)
DECREE = "Decreto 21.001/2027"
CARNIVAL_TUESDAY = date(2027, 2, 9)
STATE = seal_spec(
    CalendarSpec(
        key="br-es",
        version=1,
        layer="state",
        subdivision="ES",
        state_holidays=(AnnualHoliday(name="Dia do Colono", month=7, day=25),),
    )
)


def city(*optional: OptionalDay, **fields: object) -> CalendarSpec:
    return seal_spec(
        CalendarSpec(
            key="br-es-vitoria",
            version=1,
            subdivision="ES",
            state=StateLayer(key="br-es", version=1),
            municipal_holidays=(AnnualHoliday(name="Aniversário de Vitória", month=9, day=8),),
            optional_days=optional,
            **fields,  # type: ignore[arg-type]
        )
    )


def carnival(closes: bool, on: date = CARNIVAL_TUESDAY) -> OptionalDay:
    return OptionalDay(name="Carnaval", on=on, closes=closes, decree=DECREE)


def test_an_optional_day_the_city_closes_is_not_a_business_day_and_says_its_decree() -> None:
    calendar = Calendar.from_spec(city(carnival(True)), STATE)
    assert not calendar.is_business_day(CARNIVAL_TUESDAY)
    (closure,) = calendar.closed_by(CARNIVAL_TUESDAY)
    assert (closure.layer, closure.decree) == ("optional", DECREE)
    assert why_closed(calendar, CARNIVAL_TUESDAY) == (f"Carnaval (ponto facultativo, {DECREE})",)


def test_an_optional_day_kept_open_is_a_business_day_even_if_facultative_names_it() -> None:
    calendar = Calendar.from_spec(city(carnival(False), facultative=("Carnival",)), STATE)
    assert calendar.is_business_day(CARNIVAL_TUESDAY)
    assert calendar.closed_by(CARNIVAL_TUESDAY) == ()
    # The Monday has no dated decision: the facultative name still closes it.
    assert [c.layer for c in calendar.closed_by(date(2027, 2, 8))] == ["optional"]


def test_a_deadline_ending_on_a_closed_optional_day_moves_and_explains_why() -> None:
    # Filed Wednesday 20/01/2027: 20 days end on Carnival Tuesday 09/02.
    filed = datetime(2027, 1, 20, 10, tzinfo=BRT)
    open_due = count_legal(LAI_REQUEST, Calendar.from_spec(city(carnival(False)), STATE), filed)
    closed = Calendar.from_spec(city(carnival(True)), STATE)
    closed_due = count_legal(LAI_REQUEST, closed, filed)
    assert open_due.due_on == CARNIVAL_TUESDAY
    assert closed_due.due_on == date(2027, 2, 10)
    assert any(DECREE in line for line in explain(closed_due, LAI_REQUEST))


def test_an_optional_day_on_31_december_moves_the_end_past_new_year_and_binds_that_year_only() -> (
    None
):
    eve = OptionalDay(name="Véspera de Ano-Novo", on=date(2027, 12, 31), closes=True, decree=DECREE)
    calendar = Calendar.from_spec(city(eve), STATE)
    assert calendar.roll_forward(date(2027, 12, 31)) == date(2028, 1, 3)
    assert calendar.is_business_day(date(2026, 12, 31))
    assert calendar.is_business_day(date(2029, 12, 31))
    assert [item.on for item in calendar.optional_days(2027)] == [date(2027, 12, 31)]
    assert calendar.optional_days(2028) == ()


def test_each_closed_day_names_the_layer_that_closes_it() -> None:
    spec = city(extra_closed=(DatedHoliday(name="Enchente", on=date(2027, 3, 3)),))
    calendar = Calendar.from_spec(spec, STATE)

    def layers(day: date) -> list[str]:
        return [c.layer for c in calendar.closed_by(day)]

    assert layers(date(2027, 4, 21)) == ["national"]  # Tiradentes
    assert layers(date(2027, 4, 5)) == ["state"]  # Nossa Senhora da Penha, package (ES)
    assert layers(date(2027, 7, 26)) == []
    assert layers(date(2028, 7, 25)) == ["state"]  # the state calendar's own holiday
    assert layers(date(2027, 9, 8)) == ["municipal"]
    assert layers(date(2027, 3, 3)) == ["decree"]
    assert calendar.subdivision == "ES"


def test_a_state_holiday_entered_once_reaches_the_city_when_it_follows_the_state() -> None:
    state_v2, change = revise(
        STATE,
        state_holidays=(DatedHoliday(name="Feriado estadual", on=date(2027, 3, 10)),),
        reason="Lei estadual 1/2027",
        actor="admin-1",
        at=AT,
    )
    assert (change.version_before, change.version_after) == (1, 2)
    city_v1 = city()
    city_v2, follow = follow_state(city_v1, state_v2, reason="segue", actor="admin-1", at=AT)
    assert city_v2.version == 2 and city_v2.state == StateLayer(key="br-es", version=2)
    assert (follow.state_before, follow.state_after) == (city_v1.state, city_v2.state)
    assert Calendar.from_spec(city_v1, STATE).is_business_day(date(2027, 3, 10))
    assert not Calendar.from_spec(city_v2, state_v2).is_business_day(date(2027, 3, 10))
    with pytest.raises(CalendarMismatch):
        Calendar.from_spec(city_v1, state_v2)  # the version it pins, no other
    with pytest.raises(CalendarMismatch):
        Calendar.from_spec(city_v1)


def test_a_new_decision_for_a_date_replaces_the_old_one_in_the_next_version() -> None:
    first = city(carnival(True))
    second, change = revise(
        first, optional_days=(carnival(False),), reason="revogado", actor="a", at=AT
    )
    assert second.optional_days == (carnival(False),)
    assert change.optional_days == (carnival(False),)
    assert Calendar.from_spec(second, STATE).is_business_day(CARNIVAL_TUESDAY)
    assert not Calendar.from_spec(first, STATE).is_business_day(CARNIVAL_TUESDAY)


def test_each_layer_takes_only_its_own_days() -> None:
    with pytest.raises(CalendarRevisionInvalid):
        revise(STATE, optional_days=(carnival(True),), reason="x", actor="a", at=AT)
    with pytest.raises(CalendarRevisionInvalid):
        revise(
            city(),
            state_holidays=(DatedHoliday(name="x", on=date(2027, 3, 1)),),
            reason="x",
            actor="a",
            at=AT,
        )
    with pytest.raises(CalendarSpecInvalid):
        seal_spec(CalendarSpec(key="br-es", version=1, layer="state"))  # no state named
    with pytest.raises(CalendarSpecInvalid):
        city(OptionalDay(name="Carnaval", on=CARNIVAL_TUESDAY, closes=True, decree=" "))
    with pytest.raises(CalendarSpecInvalid):
        city(carnival(True), carnival(False))


def test_a_format_1_spec_keeps_its_checksum_and_still_verifies() -> None:
    national = seal_spec(CalendarSpec(key="br-national", version=1))
    assert national.format_version == 1
    # The checksum stored before layers and dated optional days existed.
    assert national.checksum == (
        "sha256:70a0735e19ec1ccf57df45672747e2fc57d6fd5b92fd4493eeb08f7be6c913a7"
    )
    stored = {
        "key": "br-national",
        "version": 1,
        "country": "BR",
        "subdivision": None,
        "state_holidays": [],
        "municipal_holidays": [],
        "facultative": [],
        "extra_closed": [],
        "timezone": "America/Sao_Paulo",
        "checksum": national.checksum,
        "format_version": 1,
    }
    verify_spec(msgspec.convert(stored, CalendarSpec))
    assert city(carnival(True)).format_version == 2
