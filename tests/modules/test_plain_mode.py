"""Modules work in their plain status mode when the workflow service is absent."""

from __future__ import annotations

import inspect
from datetime import UTC, datetime
from pathlib import Path

import pytest

from contracts.errors import InvalidTransition
from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.plugins import PluginHost
from core.settings import Settings
from modules.diario.domain import ACT_STATUS, ActStatus
from modules.esic.domain import REQUEST_STATUS, RequestStatus
from modules.noticias.domain import NEWS_STATUS, NewsStatus


def test_gazette_act_goes_draft_review_approved_published() -> None:
    s = ACT_STATUS.initial
    for target in (ActStatus.REVIEW, ActStatus.APPROVED, ActStatus.PUBLISHED):
        s = ACT_STATUS.advance(s, target)
    assert s is ActStatus.PUBLISHED and ACT_STATUS.terminal(s)


def test_gazette_act_cannot_be_published_before_approval() -> None:
    with pytest.raises(InvalidTransition):
        ACT_STATUS.advance(ActStatus.REVIEW, ActStatus.PUBLISHED)


def test_information_request_allows_two_appeal_instances() -> None:
    s = REQUEST_STATUS.initial
    path = [
        RequestStatus.ANALYSIS,
        RequestStatus.ANSWERED,
        RequestStatus.APPEAL_1,
        RequestStatus.APPEAL_1_ANSWERED,
        RequestStatus.APPEAL_2,
        RequestStatus.APPEAL_2_ANSWERED,
        RequestStatus.CLOSED,
    ]
    for target in path:
        s = REQUEST_STATUS.advance(s, target)
    assert REQUEST_STATUS.terminal(s)


def test_information_request_has_no_third_appeal() -> None:
    with pytest.raises(InvalidTransition):
        REQUEST_STATUS.advance(RequestStatus.APPEAL_2_ANSWERED, RequestStatus.APPEAL_1)


def test_news_rejection_goes_back_to_draft() -> None:
    s = NEWS_STATUS.advance(NewsStatus.DRAFT, NewsStatus.PENDING)
    s = NEWS_STATUS.advance(s, NewsStatus.REJECTED)
    assert NEWS_STATUS.advance(s, NewsStatus.DRAFT) is NewsStatus.DRAFT


async def test_platform_without_the_service_boots_in_plain_mode(tmp_path: Path) -> None:
    host = PluginHost()
    host.discover(groups=["tramita.modules"])
    clock = FixedClock(datetime(2026, 3, 2, tzinfo=UTC))
    platform = await Platform.boot(
        Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'plain.db'}"),
        clock=clock,
        ids=SequentialIdGen(clock),
        host=host,
    )
    try:
        assert platform.plain_mode
        assert not host.has_services()
        lines = []
        for _plugin, pending in host.demo_data(platform):
            assert inspect.isawaitable(pending)
            lines.extend(await pending)
        assert "plain mode act: draft -> review -> approved -> published" in lines
        assert len(lines) == 3
    finally:
        await platform.close()
