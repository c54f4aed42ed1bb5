"""The modules' own records and guarded moves, with the workflow service absent."""

from __future__ import annotations

import pytest

from contracts.errors import Forbidden, InvalidTransition, ValidationFailed
from contracts.kernel import Actor
from core.app import Platform
from modules.diario.domain import ActStatus
from modules.diario.records import ActStore
from modules.esic.domain import CaseStatus, ManifestationKind, RequestStatus
from modules.esic.info_requests import Requests
from modules.esic.records import Cases
from modules.noticias.domain import NewsStatus
from modules.noticias.records import Newsroom

AUTHOR, OTHER = Actor(id="author"), Actor(id="other")


async def test_plain_act_approved_before_the_cutoff_is_in_the_next_days_edition(
    plain: Platform,
) -> None:
    store = ActStore(plain)
    act = await store.draft(title="Portaria", body="...", author_id=AUTHOR.id)
    await store.submit(act.id, actor=AUTHOR)
    await store.approve(act.id, actor=OTHER)
    act = await store.publish(act.id, actor=OTHER)
    assert (act.status, act.edition_number, str(act.published_on)) == (
        ActStatus.PUBLISHED,
        1,
        "2026-03-03",
    )


async def test_plain_author_cannot_approve_her_own_act(plain: Platform) -> None:
    store = ActStore(plain)
    act = await store.draft(title="Portaria", body="...", author_id=AUTHOR.id)
    await store.submit(act.id, actor=AUTHOR)
    with pytest.raises(Forbidden):
        await store.approve(act.id, actor=AUTHOR)


async def test_plain_act_cannot_be_published_before_approval(plain: Platform) -> None:
    store = ActStore(plain)
    act = await store.draft(title="Portaria", body="...", author_id=AUTHOR.id)
    await store.submit(act.id, actor=AUTHOR)
    with pytest.raises(InvalidTransition):
        await store.publish(act.id, actor=OTHER)
    assert (await store.get(act.id)).edition_number is None


async def test_plain_request_goes_through_both_appeals(plain: Platform) -> None:
    requests = Requests(plain)
    rec = await requests.receive(sector="saude", question="?", name="Ana", email="a@x.org")
    for target in (RequestStatus.ANALYSIS, RequestStatus.ANSWERED):
        await requests.move(rec.id, target, actor=OTHER)
    await requests.appeal(rec.id, text="incompleto")
    await requests.move(rec.id, RequestStatus.APPEAL_1_ANSWERED, actor=OTHER)
    await requests.appeal(rec.id, text="ainda")
    await requests.move(rec.id, RequestStatus.APPEAL_2_ANSWERED, actor=OTHER)
    rec = await requests.move(rec.id, RequestStatus.CLOSED, actor=OTHER)
    assert rec.status == RequestStatus.CLOSED


async def test_plain_request_refuses_an_unknown_sector(plain: Platform) -> None:
    with pytest.raises(ValidationFailed):
        await Requests(plain).receive(sector="nope", question="?", name="A", email="a@x.org")


async def test_plain_anonymous_case_stores_no_contact(plain: Platform) -> None:
    cases = Cases(plain)
    case = await cases.receive(kind=ManifestationKind.PRAISE, body="ótimo atendimento")
    assert await cases.contact(case.id) is None
    await cases.move(case.id, CaseStatus.ANALYSIS, actor=OTHER)
    assert (await cases.move(case.id, CaseStatus.ANSWERED, actor=OTHER)).status == "answered"


async def test_plain_news_rejection_needs_a_reason(plain: Platform) -> None:
    room = Newsroom(plain)
    item = await room.draft(title="t", body="b", author_id=AUTHOR.id)
    await room.submit(item.id, actor=AUTHOR)
    with pytest.raises(ValidationFailed):
        await room.reject(item.id, actor=OTHER, reason=" ")
    item = await room.reject(item.id, actor=OTHER, reason="sem fonte")
    assert (item.status, item.reject_reason) == (NewsStatus.REJECTED, "sem fonte")
