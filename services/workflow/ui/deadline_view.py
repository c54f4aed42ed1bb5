"""Deadline badges for the pages: each task's state and business days left, counted on the
jurisdiction's calendar (the one the legal-time rules use) at the platform clock's now."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from litestar.connection import ASGIConnection

from contracts.workflow.types import TaskView
from services.workflow.api.access import tenant_of
from services.workflow.calendar import Calendar
from services.workflow.handles import handles_or_none
from services.workflow.runtime.kernel.deadline_badges import DeadlineBadge, badge
from services.workflow.ui.deadline_story import DeadlineStory, stories
from services.workflow.ui.web import platform_of


async def calendar_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Calendar | None:
    """The calendar the viewer's tenant counts on (its own, ``TRAMITA_WF_TENANT_CALENDARS``,
    else the jurisdiction's), or ``None`` where the deadline service is not wired (the pages
    then show due dates without badges rather than failing)."""
    handles = handles_or_none(platform_of(connection))
    if handles is None:
        return None
    return await handles.deadlines.tenant_calendar(await tenant_of(connection))


async def badges_of(
    connection: ASGIConnection[Any, Any, Any, Any], tasks: Iterable[TaskView]
) -> dict[str, DeadlineBadge]:
    """Open tasks' badges by task id (a finished task has no badge: its deadline is moot)."""
    calendar = await calendar_of(connection)
    if calendar is None:
        return {}
    now = platform_of(connection).clock.now()
    return {t.id: badge(t.due_at, now, calendar) for t in tasks if t.status in ("ready", "claimed")}


async def deadline_stories(
    connection: ASGIConnection[Any, Any, Any, Any], instance_id: str, *, public: bool = False
) -> list[DeadlineStory]:
    """The instance's legal deadlines, each with what moved it (``_deadline_explain.html``)."""
    handles = handles_or_none(platform_of(connection))
    if handles is None:
        return []
    service = handles.deadlines
    counted = await service.counted(instance_id)
    if not counted:
        return []
    tracked = await service.show(instance_id)
    return stories(counted, tracked, await service.case_calendar(instance_id), public=public)
