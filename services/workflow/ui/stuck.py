"""Operations: open instances that have made no progress for longer than a threshold.

"Progress" is the instance's ``updated_at``, as for the ``stuck`` gauge (``ops_repo``), so the
page lists exactly the instances the alert counts. "Now" is the platform's injected clock.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from litestar import Controller, Request, Response, get

from core.i18n import N_, gettext
from services.workflow.api.access import viewer_for
from services.workflow.ui.deps import reads_of
from services.workflow.ui.search import STATUSES
from services.workflow.ui.web import page, page_requires, platform_of, ui_actor

STUCK = "/cms/workflow/operations/stuck"
HOURS_CHOICES: tuple[tuple[int, str], ...] = (
    (1, N_("1 hour")),
    (24, N_("24 hours")),
    (48, N_("48 hours")),
    (168, N_("7 days")),
)
"""Thresholds and their labels (msgids: translate with ``gettext`` where shown)."""
DEFAULT_HOURS = 24
LIMIT = 100
"""Rows shown; the longest stuck come first, and the page says when there are more."""
MAX_ECHO = 20


def parse_hours(raw: str | None) -> int | None:
    """The threshold in hours (the default when absent); ``None`` when it is not a choice."""
    if raw is None or raw.strip() == "":
        return DEFAULT_HOURS
    try:
        hours = int(raw.strip())
    except ValueError:
        return None
    return hours if hours in dict(HOURS_CHOICES) else None


def hours_error(raw: str) -> str:
    shown = raw if len(raw) <= MAX_ECHO else raw[: MAX_ECHO - 1] + "…"
    choices = ", ".join(gettext(label) for _, label in HOURS_CHOICES)
    return gettext(
        "“%(value)s” is not one of the possible thresholds. Choose one of: %(choices)s."
    ) % {
        "value": shown,
        "choices": choices,
    }


def status_labels() -> dict[str, str]:
    return {key: gettext(label) for key, label in STATUSES.items()}


def _choices() -> list[tuple[int, str]]:
    return [(hours, gettext(label)) for hours, label in HOURS_CHOICES]


def fmt_age(age: timedelta) -> str:
    """How long an instance has been still, coarse enough to read at a glance."""
    minutes = max(0, int(age.total_seconds()) // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min"


class StuckInstancesController(Controller):
    path = STUCK
    include_in_schema = False
    guards = [page_requires("workflow.operate")]

    @get("/")
    async def stuck(self, request: Request[Any, Any, Any]) -> Response[Any]:
        raw = request.query_params.get("hours")
        hours = parse_hours(raw)
        if hours is None:
            return page(
                request,
                "stuck.html",
                status_code=400,
                choices=_choices(),
                selected=DEFAULT_HOURS,
                error=hours_error(str(raw)),
                rows=[],
                more=False,
                limit=LIMIT,
            )
        now = platform_of(request).clock.now()
        viewer = await viewer_for(request, ui_actor(request).id)
        found = await reads_of(request).stuck_instances(
            now - timedelta(hours=hours), LIMIT + 1, viewer=viewer
        )
        return page(
            request,
            "stuck.html",
            choices=_choices(),
            selected=hours,
            label=gettext(dict(HOURS_CHOICES)[hours]),
            error=None,
            rows=[(item, fmt_age(now - item.last_progress_at)) for item in found[:LIMIT]],
            more=len(found) > LIMIT,
            limit=LIMIT,
            status_label=status_labels(),
        )
