"""Without the workflow service the module still works: its own actions move the status."""

from __future__ import annotations

import pytest
from tramita_alvara.domain import LicenceStatus
from tramita_alvara.plugin import RUNTIME
from tramita_alvara.tax import MIN_FEE_CENTS, fee_cents

from contracts.errors import InvalidTransition, ValidationFailed
from contracts.kernel import Actor
from core.app import Platform

APPLICANT = Actor(id="0190d1a0-0000-7000-8000-00000000c001")
OFFICER = Actor(id="0190d1a0-0000-7000-8000-00000000c002")


async def _submitted(platform: Platform) -> str:
    licences = RUNTIME.licences
    draft = await licences.request(
        business_name="Oficina do Zé", activity="servicos", area_m2=120, applicant_id=APPLICANT.id
    )
    assert draft.status is LicenceStatus.DRAFT
    submitted = await licences.submit(draft.id, actor=APPLICANT)
    assert (submitted.status, submitted.instance_id) == (LicenceStatus.UNDER_REVIEW, None)
    return draft.id


async def test_an_approved_request_is_issued_with_the_year_and_a_sequence(
    plain: Platform,
) -> None:
    licences = RUNTIME.licences
    first, second = await _submitted(plain), await _submitted(plain)
    for licence_id in (first, second):
        await licences.move(licence_id, LicenceStatus.APPROVED, actor=OFFICER)
        await licences.move(licence_id, LicenceStatus.ISSUED, actor=OFFICER)
    numbers = [(await licences.get(i)).number for i in (first, second)]
    assert numbers == ["ALV-2026-00001", "ALV-2026-00002"]


async def test_a_move_the_machine_does_not_allow_is_refused(plain: Platform) -> None:
    licence_id = await _submitted(plain)
    with pytest.raises(InvalidTransition):
        await RUNTIME.licences.move(licence_id, LicenceStatus.ISSUED, actor=OFFICER)
    assert (await RUNTIME.licences.get(licence_id)).status is LicenceStatus.UNDER_REVIEW


async def test_issuing_twice_keeps_the_first_number(plain: Platform) -> None:
    licence_id = await _submitted(plain)
    first = await RUNTIME.licences.issue(licence_id, fee_slip="DAM-1", key="k1")
    again = await RUNTIME.licences.issue(licence_id, fee_slip="DAM-1", key="k1")
    assert first == again == "ALV-2026-00001"


async def test_an_activity_outside_the_zoning_law_is_refused(plain: Platform) -> None:
    with pytest.raises(ValidationFailed):
        await RUNTIME.licences.request(
            business_name="X", activity="mineracao", area_m2=10, applicant_id=APPLICANT.id
        )


def test_the_fee_grows_with_the_area_above_the_minimum() -> None:
    assert (fee_cents(10), fee_cents(100)) == (MIN_FEE_CENTS, 25_000)
