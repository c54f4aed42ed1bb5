"""Legal rules counted from the filing instant: receipt cut-off, roll-forward, holidays of each
calendar, extensions from the deadline in force, the year boundary, and the explanation."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo

import msgspec

from contracts.workflow.legal import LegalRule
from modules.esic.legal import LAI_APPEAL_WINDOW, LAI_REQUEST, OUVIDORIA_MANIFESTATION
from services.workflow.calendar import AnnualHoliday, Calendar, CalendarSpec, seal_spec
from services.workflow.calendar.legal import (
    ReceiptRule,
    count_extension,
    count_legal,
    explain,
    receive,
)

BRT = ZoneInfo("America/Sao_Paulo")
NATIONAL = Calendar.from_spec(seal_spec(CalendarSpec(key="br-national", version=1)))
VITORIA = Calendar.from_spec(
    seal_spec(
        CalendarSpec(
            key="br-es-vitoria",
            version=1,
            subdivision="ES",
            municipal_holidays=(AnnualHoliday(name="Aniversário de Vitória", month=9, day=8),),
        )
    )
)


def local(y: int, m: int, d: int, hh: int = 10, mm: int = 0) -> datetime:
    return datetime(y, m, d, hh, mm, tzinfo=BRT)


def test_an_esic_request_filed_on_tuesday_1_december_is_due_monday_21_december() -> None:
    due = count_legal(LAI_REQUEST, NATIONAL, local(2026, 12, 1))
    assert (due.start_on, due.due_on) == (date(2026, 12, 1), date(2026, 12, 21))
    assert due.due_at == datetime(2026, 12, 21, 23, 59, 59, tzinfo=BRT)
    assert due.moved == ()


def test_a_request_filed_at_19h_counts_as_received_the_next_business_day() -> None:
    before = receive(NATIONAL, local(2026, 12, 1, 18, 59))
    after = receive(NATIONAL, local(2026, 12, 1, 19, 0))
    assert (before.received_on, before.moved) == (date(2026, 12, 1), None)
    assert (after.received_on, after.moved) == (date(2026, 12, 2), "after_cutoff")
    assert after.received_at == datetime(2026, 12, 2, 0, 0, tzinfo=BRT)
    assert after.filed_at == local(2026, 12, 1, 19, 0)
    assert count_legal(LAI_REQUEST, NATIONAL, local(2026, 12, 1, 19, 0)).due_on == date(
        2026, 12, 22
    )


def test_a_request_filed_on_saturday_is_received_monday_and_a_sunday_end_rolls() -> None:
    due = count_legal(LAI_REQUEST, NATIONAL, local(2026, 12, 5))
    assert due.receipt is not None and due.receipt.moved == "closed_day"
    assert due.receipt.received_on == date(2026, 12, 7)
    assert (due.nominal_end, due.due_on) == (date(2026, 12, 27), date(2026, 12, 28))
    assert [(m.day, m.why) for m in due.moved] == [(date(2026, 12, 27), ("fim de semana",))]


def test_a_last_day_on_a_national_holiday_moves_to_the_next_business_day() -> None:
    due = count_legal(LAI_REQUEST, NATIONAL, local(2026, 10, 13))
    assert (due.nominal_end, due.due_on) == (date(2026, 11, 2), date(2026, 11, 3))
    assert [m.why for m in due.moved] == [("Finados",)]
    assert "02/11/2026: Finados" in " ".join(explain(due, LAI_REQUEST))


def test_a_municipal_holiday_moves_the_end_in_its_city_only() -> None:
    filed = local(2026, 8, 19)
    assert count_legal(LAI_REQUEST, NATIONAL, filed).due_on == date(2026, 9, 8)
    in_vitoria = count_legal(LAI_REQUEST, VITORIA, filed)
    assert in_vitoria.due_on == date(2026, 9, 9)
    assert [m.why for m in in_vitoria.moved] == [("Aniversário de Vitória",)]


def test_the_extension_counts_from_the_rolled_due_date_across_the_year_boundary() -> None:
    first = count_legal(LAI_REQUEST, NATIONAL, local(2026, 12, 5))
    extended = count_extension(LAI_REQUEST, NATIONAL, first.due_on)
    assert first.due_on == date(2026, 12, 28)
    assert (extended.extends, extended.due_on) == (date(2026, 12, 28), date(2027, 1, 7))
    assert "Prorrogação de 10 dias corridos" in explain(extended, LAI_REQUEST)[0]


def test_a_city_that_closes_on_new_years_eve_moves_an_end_on_31_december_to_january() -> None:
    open_city = count_legal(LAI_REQUEST, NATIONAL, local(2026, 12, 11))
    closed = Calendar.from_spec(
        seal_spec(CalendarSpec(key="br-closed", version=1, facultative=("New Year's Eve",)))
    )
    closed_city = count_legal(LAI_REQUEST, closed, local(2026, 12, 11))
    assert open_city.due_on == date(2026, 12, 31)
    assert closed_city.due_on == date(2027, 1, 4)
    assert [m.why for m in closed_city.moved] == [
        ("Véspera de Ano-Novo",),
        ("Confraternização Universal",),
        ("fim de semana",),
        ("fim de semana",),
    ]


def test_a_filing_at_23h30_local_counts_on_the_local_day_not_the_utc_one() -> None:
    filed = local(2026, 12, 1, 23, 30)
    assert filed.astimezone(UTC).date() == date(2026, 12, 2)
    late_office = ReceiptRule(cutoff=time(23, 45))
    due = count_legal(LAI_REQUEST, NATIONAL, filed, receipt=late_office)
    assert (due.start_on, due.due_on) == (date(2026, 12, 1), date(2026, 12, 21))
    # With the default 19:00 cut-off the same filing is received on 02/12.
    assert count_legal(LAI_REQUEST, NATIONAL, filed).due_on == date(2026, 12, 22)


def test_a_business_day_rule_skips_weekends_and_christmas() -> None:
    business = msgspec.structs.replace(LAI_REQUEST, counting="business")
    due = count_legal(business, NATIONAL, local(2026, 12, 1))
    assert due.due_on == date(2026, 12, 30)
    assert date(2026, 12, 25) in [m.day for m in due.moved]
    assert "Dias sem expediente não contados" in " ".join(explain(due, business))


def test_a_rule_without_roll_forward_may_end_on_a_sunday() -> None:
    strict = LegalRule(
        key="x.strict", name="x", counting="calendar", days=20, roll_forward=False, legal_basis="x"
    )
    assert count_legal(strict, NATIONAL, local(2026, 12, 5)).due_on == date(2026, 12, 27)


def test_the_appeal_window_counts_from_the_answer_day_whatever_the_hour() -> None:
    due = count_legal(LAI_APPEAL_WINDOW, NATIONAL, local(2026, 12, 1, 21, 0))
    assert due.receipt is None
    assert due.due_on == date(2026, 12, 11)


def test_the_ombudsman_rule_is_thirty_days_plus_one_extension_of_thirty() -> None:
    first = count_legal(OUVIDORIA_MANIFESTATION, NATIONAL, local(2026, 3, 2))
    extended = count_extension(OUVIDORIA_MANIFESTATION, NATIONAL, first.due_on)
    assert (first.due_on, extended.due_on) == (date(2026, 4, 1), date(2026, 5, 4))


def test_the_explanation_says_filing_receipt_rule_and_due_date_in_brazilian_dates() -> None:
    due = count_legal(LAI_REQUEST, NATIONAL, local(2026, 12, 5, 9, 30))
    assert explain(due, LAI_REQUEST) == [
        "Protocolado em 05/12/2026 às 09:30.",
        "Protocolado em dia sem expediente: considerado recebido em 07/12/2026.",
        "Prazo de 20 dias corridos (Lei 12.527/2011, art. 11, §§ 1º e 2º; Decreto 7.724/2012, "
        "arts. 15 e 16), contados a partir do dia seguinte a 07/12/2026.",
        "O prazo terminaria em 27/12/2026, dia sem expediente (27/12/2026: fim de semana), "
        "e passa ao dia útil seguinte.",
        "Vence em 28/12/2026, às 23:59 (horário local).",
    ]
