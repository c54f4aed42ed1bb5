"""The draft store on both backends: documents kept verbatim, times and ids from the
platform, and optimistic concurrency on every change (a stale save never overwrites)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from contracts.errors import ConcurrentModification, NotFound
from contracts.kernel import Actor
from core.app import Platform
from core.clock import FixedClock
from services.workflow.persistence.drafts_repo import SqlDraftStore
from services.workflow.persistence.unit_of_work import SqlUnitOfWork

ANA = Actor(kind="user", id="ana")
BIA = Actor(kind="user", id="bia")
DOCUMENT = {
    "format": 1,
    "key": "t.rascunho",
    "name": "Rascunho",
    "protocol_prefix": "RAS",
    "nodes": [
        {
            "id": "review",
            "name": "Review",
            "type": "approval",
            "outcomes": {"reject": "end", "approve": "end"},
        },
        {"id": "end", "type": "end"},
    ],
}


def _store(platform: Platform) -> SqlDraftStore:
    def uow() -> SqlUnitOfWork:
        return SqlUnitOfWork(platform.database, platform.clock, platform.ids, platform.audit)

    return SqlDraftStore(uow, platform.clock, platform.ids)


async def test_a_created_draft_reads_back_verbatim_with_the_platform_clock(
    platform: Platform, clock: FixedClock
) -> None:
    store = _store(platform)
    created = await store.create(key="t.rascunho", base_version=None, document=DOCUMENT, actor=ANA)
    found = await store.get(created.id)
    assert found == created
    assert found is not None and list(found.document["nodes"][0]["outcomes"]) == [
        "reject",
        "approve",
    ]
    assert (found.created_at, found.row_version, found.published_version) == (clock.now(), 1, None)


async def test_saving_at_the_loaded_version_bumps_it_and_records_who_and_when(
    platform: Platform, clock: FixedClock
) -> None:
    store = _store(platform)
    draft = await store.create(key="t.rascunho", base_version=3, document=DOCUMENT, actor=ANA)
    clock.advance(timedelta(minutes=5))
    changed = {**DOCUMENT, "name": "Outro"}
    saved = await store.save(draft.id, changed, expected=1, actor=BIA)
    assert (saved.row_version, saved.updated_by, saved.created_by) == (2, "bia", "ana")
    assert (saved.updated_at - saved.created_at, saved.document["name"]) == (
        timedelta(minutes=5),
        "Outro",
    )


async def test_a_stale_save_is_refused_and_leaves_the_newer_document(platform: Platform) -> None:
    store = _store(platform)
    draft = await store.create(key="t.rascunho", base_version=None, document=DOCUMENT, actor=ANA)
    await store.save(draft.id, {**DOCUMENT, "name": "Da Ana"}, expected=1, actor=ANA)
    with pytest.raises(ConcurrentModification):
        await store.save(draft.id, {**DOCUMENT, "name": "Da Bia"}, expected=1, actor=BIA)
    found = await store.get(draft.id)
    assert found is not None and (found.document["name"], found.row_version) == ("Da Ana", 2)


async def test_a_published_draft_is_read_only_and_listed_after_the_open_ones(
    platform: Platform, clock: FixedClock
) -> None:
    store = _store(platform)
    done = await store.create(key="t.feito", base_version=None, document=DOCUMENT, actor=ANA)
    await store.mark_published(done.id, 4, expected=1, actor=ANA)
    clock.advance(timedelta(seconds=1))
    open_one = await store.create(key="t.aberto", base_version=None, document=DOCUMENT, actor=ANA)
    with pytest.raises(ConcurrentModification):
        await store.save(done.id, DOCUMENT, expected=2, actor=ANA)
    listed = await store.list_drafts()
    assert [(d.id, d.published_version) for d in listed] == [(open_one.id, None), (done.id, 4)]


async def test_deleting_needs_the_current_version_and_an_unknown_draft_is_not_found(
    platform: Platform,
) -> None:
    store = _store(platform)
    draft = await store.create(key="t.rascunho", base_version=None, document=DOCUMENT, actor=ANA)
    with pytest.raises(ConcurrentModification):
        await store.delete(draft.id, expected=7)
    await store.delete(draft.id, expected=1)
    assert await store.get(draft.id) is None
    with pytest.raises(NotFound):
        await store.save(draft.id, DOCUMENT, expected=1, actor=ANA)
