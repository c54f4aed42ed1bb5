"""Day arithmetic over Brazilian calendars. Expected dates were worked out by hand."""

from __future__ import annotations

from datetime import UTC, date, datetime

import holidays
import pytest

from services.workflow.calendar import (
    AnnualHoliday,
    Calendar,
    CalendarSpec,
    DeadlineInputInvalid,
    seal_spec,
)


def _optional_2027(name: str) -> list[date]:
    table = holidays.country_holidays(
        "BR", subdiv="ES", years=2027, categories=("optional",), language="en_US"
    )
    return sorted(day for day in table if name in table.get_list(day))


def test_holidays_library_places_carnival_2027_on_february_8_and_9() -> None:
    assert _optional_2027("Carnival") == [date(2027, 2, 8), date(2027, 2, 9)]
    assert _optional_2027("Ash Wednesday") == [date(2027, 2, 10)]


def test_carnival_is_not_a_national_public_holiday() -> None:
    public = holidays.country_holidays("BR", subdiv="ES", years=2027, categories=("public",))
    assert date(2027, 2, 8) not in public
    assert date(2027, 2, 9) not in public


def test_carnival_is_a_business_day_without_facultative_configuration(vitoria: Calendar) -> None:
    assert vitoria.is_business_day(date(2027, 2, 8))
    assert vitoria.add_business_days(date(2027, 2, 5), 1) == date(2027, 2, 8)


def test_carnival_is_closed_when_configured_as_facultative(
    vitoria_with_carnival: Calendar,
) -> None:
    assert not vitoria_with_carnival.is_business_day(date(2027, 2, 9))
    assert vitoria_with_carnival.closures(date(2027, 2, 8)) == ("Carnival",)
    # Friday 5 Feb + 1 business day skips the weekend and Carnival: Ash Wednesday stays open.
    assert vitoria_with_carnival.add_business_days(date(2027, 2, 5), 1) == date(2027, 2, 10)


def test_ash_wednesday_closes_only_when_listed_too() -> None:
    spec = CalendarSpec(
        key="br-es-full-carnival",
        version=1,
        subdivision="ES",
        facultative=("Carnival", "Ash Wednesday"),
    )
    calendar = Calendar.from_spec(seal_spec(spec))
    assert calendar.add_business_days(date(2027, 2, 5), 1) == date(2027, 2, 11)


def test_calendar_day_count_ending_on_carnival_moves_past_it_only_when_configured(
    vitoria: Calendar, vitoria_with_carnival: Calendar
) -> None:
    # 29 Jan 2027 (Friday) + 10 days = Monday 8 Feb, Carnival Monday.
    assert vitoria.add_calendar_days(date(2027, 1, 29), 10) == date(2027, 2, 8)
    assert vitoria_with_carnival.add_calendar_days(date(2027, 1, 29), 10) == date(2027, 2, 10)


def test_good_friday_moves_a_calendar_day_end_to_monday(es: Calendar) -> None:
    # 16 Mar 2027 + 10 days = Good Friday 26 Mar; Saturday and Sunday follow.
    assert es.closures(date(2027, 3, 26)) == ("Good Friday",)
    assert es.add_calendar_days(date(2027, 3, 16), 10) == date(2027, 3, 29)


def test_good_friday_is_skipped_in_business_day_counting(es: Calendar) -> None:
    assert es.add_business_days(date(2027, 3, 25), 1) == date(2027, 3, 29)


def test_tiradentes_is_skipped_in_business_day_counting(es: Calendar) -> None:
    assert not es.is_business_day(date(2027, 4, 21))
    assert es.add_business_days(date(2027, 4, 20), 1) == date(2027, 4, 22)


def test_state_holiday_from_the_provider_closes_espirito_santo(es: Calendar) -> None:
    # Our Lady of Penha: a movable Espírito Santo holiday (Monday 5 Apr 2027).
    assert es.closures(date(2027, 4, 5)) == ("Our Lady of Penha",)
    assert not es.is_business_day(date(2027, 4, 5))


def test_municipal_holiday_is_skipped_only_where_configured(
    es: Calendar, vitoria: Calendar
) -> None:
    # Monday 6 Sep 2027; Tuesday 7 is Independence Day, Wednesday 8 Vitória's anniversary.
    assert vitoria.add_business_days(date(2027, 9, 6), 2) == date(2027, 9, 10)
    assert es.add_business_days(date(2027, 9, 6), 2) == date(2027, 9, 9)


def test_calendar_days_ending_on_the_city_anniversary_move_to_the_next_day(
    vitoria: Calendar,
) -> None:
    assert vitoria.add_calendar_days(date(2027, 8, 29), 10) == date(2027, 9, 9)


def test_end_on_saturday_moves_to_monday(es: Calendar) -> None:
    assert es.add_calendar_days(date(2027, 3, 1), 5) == date(2027, 3, 8)


def test_business_days_across_the_year_boundary_skip_christmas_and_new_year(
    es: Calendar,
) -> None:
    # Wed 20 Dec 2028; Christmas (Mon 25 Dec) and New Year (Mon 1 Jan 2029) fall on weekdays.
    assert es.add_business_days(date(2028, 12, 20), 20) == date(2029, 1, 19)


def test_calendar_days_ending_on_new_years_day_move_to_january_2(es: Calendar) -> None:
    assert es.add_calendar_days(date(2028, 12, 12), 20) == date(2029, 1, 2)


def test_zero_business_days_rolls_a_closed_day_forward(es: Calendar) -> None:
    assert es.add_business_days(date(2027, 3, 6), 0) == date(2027, 3, 8)
    assert es.add_business_days(date(2027, 3, 8), 0) == date(2027, 3, 8)


def test_next_business_day_is_strictly_after(es: Calendar) -> None:
    assert es.next_business_day(date(2027, 3, 5)) == date(2027, 3, 8)
    assert es.next_business_day(date(2027, 3, 8)) == date(2027, 3, 9)


def test_business_days_between_excludes_start_and_includes_end(es: Calendar) -> None:
    assert es.business_days_between(date(2027, 4, 19), date(2027, 4, 23)) == 3  # 21 closed
    assert es.business_days_between(date(2027, 4, 23), date(2027, 4, 19)) == 0


def test_negative_counts_are_refused(es: Calendar) -> None:
    with pytest.raises(DeadlineInputInvalid):
        es.add_business_days(date(2027, 3, 1), -1)
    with pytest.raises(DeadlineInputInvalid):
        es.add_calendar_days(date(2027, 3, 1), -1)


def test_annual_holiday_on_february_29_closes_only_leap_years() -> None:
    spec = CalendarSpec(
        key="br-leap",
        version=1,
        municipal_holidays=(AnnualHoliday(name="Leap day", month=2, day=29),),
    )
    calendar = Calendar.from_spec(seal_spec(spec))
    assert not calendar.is_business_day(date(2028, 2, 29))
    assert calendar.is_business_day(date(2027, 3, 1))


def test_deadlines_end_at_23_59_59_local_time(es: Calendar) -> None:
    end = es.end_of_day(date(2027, 3, 8))
    assert end.isoformat() == "2027-03-08T23:59:59-03:00"


def test_local_date_uses_the_calendar_time_zone(es: Calendar) -> None:
    assert es.local_date(datetime(2027, 3, 2, 1, 0, tzinfo=UTC)) == date(2027, 3, 1)


def test_naive_instants_are_refused(es: Calendar) -> None:
    with pytest.raises(DeadlineInputInvalid):
        es.local_date(datetime(2027, 3, 2, 1, 0))
