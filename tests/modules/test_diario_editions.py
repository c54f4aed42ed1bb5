"""Edition composition on both databases: cut-off, publication days, frozen acts,
retificação and extra editions (plain mode: the module's own rules)."""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from contracts.calendar import BUSINESS_DAYS_KEY
from contracts.errors import Conflict, NotFound
from core.app import Platform
from core.clock import FixedClock
from modules.diario.config import DiarioConfig
from modules.diario.editions import EditionDesk
from modules.diario.records import ActFrozen, ActStore
from tests.modules.gazette_kit import OTHER, approved, gazette_config, published

pytestmark = pytest.mark.db

# 2026-03-02 is a Monday; Brasília is UTC-3.
MON_16H = datetime(2026, 3, 2, 19, 0, tzinfo=UTC)
MON_18H = datetime(2026, 3, 2, 21, 0, tzinfo=UTC)
FRI_18H = datetime(2026, 3, 6, 21, 0, tzinfo=UTC)


class Closed:
    """A calendar with extra closed days (a holiday, an optional day off)."""

    def __init__(self, *days: date) -> None:
        self.days = set(days)

    def is_business_day(self, day: date) -> bool:
        return day.weekday() < 5 and day not in self.days


@pytest.fixture
def config(tmp_path: Path) -> DiarioConfig:
    return gazette_config(tmp_path)


async def test_an_act_approved_before_the_cutoff_enters_the_next_days_edition(
    plain: Platform, clock: FixedClock, config: DiarioConfig
) -> None:
    clock.set(MON_16H)
    act = await published(ActStore(plain, config), "Portaria 1")
    assert (act.edition_number, act.published_on) == (1, date(2026, 3, 3))


async def test_an_act_approved_after_the_cutoff_waits_one_more_edition(
    plain: Platform, clock: FixedClock, config: DiarioConfig
) -> None:
    store = ActStore(plain, config)
    clock.set(MON_16H)
    early = await published(store, "Portaria cedo")
    clock.set(MON_18H)
    late = await published(store, "Portaria tarde")
    assert (early.published_on, late.published_on) == (date(2026, 3, 3), date(2026, 3, 4))
    assert late.edition_number == 2


async def test_weekends_and_holidays_are_not_publication_days(
    plain: Platform, clock: FixedClock, config: DiarioConfig
) -> None:
    # Friday after the cut-off: Monday's cut-off (Friday 17:00) has passed, so Tuesday;
    # with Tuesday a holiday (Carnaval), Wednesday.
    plain.extras[BUSINESS_DAYS_KEY] = Closed(date(2026, 3, 10))
    clock.set(FRI_18H)
    act = await published(ActStore(plain, config), "Decreto")
    assert act.published_on == date(2026, 3, 11)


async def test_a_composed_edition_freezes_its_acts(
    plain: Platform, clock: FixedClock, config: DiarioConfig
) -> None:
    store, desk = ActStore(plain, config), EditionDesk(plain, config)
    clock.set(MON_16H)
    act = await published(store, "Portaria 2")
    await store.revise(act.id, actor=OTHER, title="Portaria 2 (revista)", body="novo texto")
    edition = await desk.compose(1, actor=OTHER)
    assert edition.status == "composed" and edition.pdf_sha256 is not None
    assert (await store.get(act.id)).frozen
    with pytest.raises(ActFrozen):
        await store.revise(act.id, actor=OTHER, title="outra", body="outro")
    assert (await store.get(act.id)).title == "Portaria 2 (revista)"
    with pytest.raises(Conflict):
        await desk.compose(1, actor=OTHER)


async def test_an_act_for_an_edition_already_composed_goes_to_the_next_one(
    plain: Platform, clock: FixedClock, config: DiarioConfig
) -> None:
    store, desk = ActStore(plain, config), EditionDesk(plain, config)
    clock.set(MON_16H)
    await published(store, "Primeiro")
    await desk.compose(1, actor=OTHER)
    late = await published(store, "Segundo")  # same instant, but Tuesday's is closed
    assert (late.edition_number, late.published_on) == (2, date(2026, 3, 4))


async def test_stored_pdf_matches_its_hash_and_verifies(
    plain: Platform, clock: FixedClock, config: DiarioConfig
) -> None:
    store, desk = ActStore(plain, config), EditionDesk(plain, config)
    clock.set(MON_16H)
    await published(store, "Portaria 3")
    edition = await desk.compose(1, actor=OTHER)
    stored, pdf = await desk.pdf(1)
    assert hashlib.sha256(pdf).hexdigest() == stored.pdf_sha256 == edition.pdf_sha256
    assert edition.verification_code is not None and edition.signer is not None
    verdict = await desk.verify(edition.verification_code.lower())
    assert verdict.authentic and verdict.check.signer is not None
    assert "Prefeitura de Teste" in verdict.check.signer
    assert [e.number for e in await desk.published()] == [1]
    with pytest.raises(NotFound):
        await desk.verify("AAAA-BBBB-CCCC")


async def test_a_retificacao_points_to_the_act_it_corrects(
    plain: Platform, clock: FixedClock, config: DiarioConfig
) -> None:
    store, desk = ActStore(plain, config), EditionDesk(plain, config)
    clock.set(MON_16H)
    original = await published(store, "Portaria 4")
    with pytest.raises(Conflict):  # not composed yet: edit it instead
        await store.draft(title="x", body="y", author_id="author", corrects=original.id)
    await desk.compose(1, actor=OTHER)
    clock.advance(timedelta(days=1))
    fix = await store.draft(
        title="Retificação da Portaria 4",
        body="Onde se lê...",
        author_id="author",
        corrects=original.id,
    )
    await store.submit(fix.id, actor=OTHER.__class__(id="author"))
    await store.approve(fix.id, actor=OTHER)
    fix = await store.publish(fix.id, actor=OTHER)
    assert fix.corrects_id == original.id and fix.edition_number == 2
    assert await desk.corrections(original.id) == [("Retificação da Portaria 4", 2)]


async def test_an_extra_edition_takes_approved_acts_at_once(
    plain: Platform, clock: FixedClock, config: DiarioConfig
) -> None:
    store, desk = ActStore(plain, config), EditionDesk(plain, config)
    clock.set(MON_16H)
    scheduled = await published(store, "Portaria regular")
    urgent = await approved(store, "Decreto de emergência")
    extra = await desk.extra([urgent.id], actor=OTHER)
    assert extra.extra and extra.number == 2 and extra.published_on == date(2026, 3, 2)
    assert extra.pdf_sha256 is not None
    assert (await store.get(urgent.id)).frozen
    assert not (await store.get(scheduled.id)).frozen
    with pytest.raises(Conflict):  # already in a composed edition
        await desk.extra([urgent.id], actor=OTHER)
    regular = await desk.compose(1, actor=OTHER)
    assert not regular.extra and regular.published_on == date(2026, 3, 3)
