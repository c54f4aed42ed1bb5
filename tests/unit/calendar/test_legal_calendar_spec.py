"""Calendar specs: validation, checksums and audited revisions."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import msgspec
import pytest

from services.workflow.calendar import (
    AnnualHoliday,
    Calendar,
    CalendarChange,
    CalendarRevisionInvalid,
    CalendarSpec,
    CalendarSpecInvalid,
    DatedHoliday,
    revise,
    seal_spec,
    spec_checksum,
    verify_spec,
)

SP = ZoneInfo("America/Sao_Paulo")
DECREED = DatedHoliday(name="Ponto facultativo (decreto municipal)", on=date(2027, 12, 24))


def _spec(**fields: object) -> CalendarSpec:
    base: dict[str, object] = {"key": "br-es-vitoria", "version": 1, "subdivision": "ES"}
    base.update(fields)
    return CalendarSpec(**base)  # type: ignore[arg-type]


def _codes(error: CalendarSpecInvalid | CalendarRevisionInvalid) -> set[tuple[str, str]]:
    return {(item.path, item.code) for item in error.errors}


def test_seal_sets_a_checksum_that_verify_accepts() -> None:
    sealed = seal_spec(_spec())
    assert sealed.checksum == spec_checksum(sealed)
    assert sealed.checksum.startswith("sha256:")
    verify_spec(sealed)


def test_tampered_spec_is_refused_by_its_checksum() -> None:
    sealed = seal_spec(_spec())
    tampered = msgspec.structs.replace(sealed, facultative=("Carnival",))
    with pytest.raises(CalendarSpecInvalid) as caught:
        Calendar.from_spec(tampered)
    assert ("checksum", "mismatch") in _codes(caught.value)


def test_checksum_ignores_the_order_of_listed_names() -> None:
    one = _spec(facultative=("Carnival", "Corpus Christi"))
    other = _spec(facultative=("Corpus Christi", "Carnival"))
    assert spec_checksum(one) == spec_checksum(other)
    assert spec_checksum(one) != spec_checksum(_spec(facultative=("Carnival",)))


def test_every_problem_in_a_spec_is_reported_at_once() -> None:
    bad = _spec(
        key="Vitória ES",
        subdivision="XX",
        timezone="Mars/Olympus",
        municipal_holidays=(AnnualHoliday(name="", month=2, day=30),),
    )
    with pytest.raises(CalendarSpecInvalid) as caught:
        seal_spec(bad)
    assert _codes(caught.value) >= {
        ("key", "invalid"),
        ("subdivision", "unknown"),
        ("timezone", "unknown"),
        ("municipal_holidays[0].name", "invalid"),
        ("municipal_holidays[0]", "invalid_date"),
    }


def test_unknown_facultative_name_is_refused() -> None:
    with pytest.raises(CalendarSpecInvalid) as caught:
        seal_spec(_spec(facultative=("Carnaval",)))
    assert ("facultative[0]", "unknown") in _codes(caught.value)


def test_spec_round_trips_through_json() -> None:
    sealed = seal_spec(
        _spec(
            facultative=("Carnival",),
            municipal_holidays=(AnnualHoliday(name="Aniversário", month=9, day=8),),
            extra_closed=(DECREED,),
        )
    )
    decoded = msgspec.json.decode(msgspec.json.encode(sealed), type=CalendarSpec)
    assert decoded == sealed
    verify_spec(decoded)


def test_revision_with_a_decreed_closure_makes_a_new_audited_version() -> None:
    v1 = seal_spec(_spec())
    when = datetime(2027, 12, 10, 14, 30, tzinfo=SP)
    v2, change = revise(
        v1, add_closed=[DECREED], reason="Decreto 123/2027", actor="user-42", at=when
    )
    assert v2.version == 2
    assert v2.extra_closed == (DECREED,)
    assert v1.extra_closed == ()  # the old version is untouched
    assert change == CalendarChange(
        calendar_key="br-es-vitoria",
        version_before=1,
        version_after=2,
        checksum_before=v1.checksum,
        checksum_after=v2.checksum,
        added=(DECREED,),
        removed=(),
        reason="Decreto 123/2027",
        actor="user-42",
        at=when,
    )
    assert change.checksum_before != change.checksum_after
    assert Calendar.from_spec(v1).is_business_day(date(2027, 12, 24))
    assert not Calendar.from_spec(v2).is_business_day(date(2027, 12, 24))


def test_revision_can_revoke_a_decreed_closure() -> None:
    v1 = seal_spec(_spec(extra_closed=(DECREED,)))
    at = datetime(2027, 12, 11, 9, tzinfo=SP)
    v2, change = revise(v1, remove_closed=[DECREED.on], reason="revoked", actor="u-1", at=at)
    assert v2.extra_closed == ()
    assert change.removed == (DECREED.on,)
    assert Calendar.from_spec(v2).is_business_day(DECREED.on)


def test_revision_without_reason_or_actor_is_refused() -> None:
    v1 = seal_spec(_spec())
    at = datetime(2027, 12, 10, tzinfo=SP)
    with pytest.raises(CalendarRevisionInvalid) as caught:
        revise(v1, add_closed=[DECREED], reason="  ", actor="", at=at)
    assert {("reason", "required"), ("actor", "required")} <= _codes(caught.value)


def test_revision_removing_a_date_that_is_not_an_extra_closure_is_refused() -> None:
    v1 = seal_spec(_spec())
    at = datetime(2027, 12, 10, tzinfo=SP)
    with pytest.raises(CalendarRevisionInvalid) as caught:
        revise(v1, remove_closed=[date(2027, 12, 25)], reason="r", actor="a", at=at)
    assert ("remove_closed[0]", "not_closed") in _codes(caught.value)


def test_revision_adding_an_already_closed_date_is_refused() -> None:
    v1 = seal_spec(_spec(extra_closed=(DECREED,)))
    at = datetime(2027, 12, 10, tzinfo=SP)
    with pytest.raises(CalendarRevisionInvalid) as caught:
        revise(v1, add_closed=[DECREED], reason="again", actor="a", at=at)
    assert ("add_closed[0]", "duplicate") in _codes(caught.value)


def test_revision_with_nothing_to_change_is_refused() -> None:
    v1 = seal_spec(_spec())
    with pytest.raises(CalendarRevisionInvalid):
        revise(v1, reason="r", actor="a", at=datetime(2027, 12, 10, tzinfo=SP))
