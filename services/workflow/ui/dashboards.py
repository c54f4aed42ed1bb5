"""``/cms/workflow/dashboard``: the supervisor's view of deadlines and workload.

Per queue (``by=queue``) or per definition (``by=definition``), optionally one of them
(``key=``): open tasks, due this week (until the local Sunday ends), overdue, answered in the
last 90 days and the median time to answer — as an SVG bar chart and as a table with the same
numbers, and as CSV (UTF-8, a header row, the measuring instant in local time). Below, every
definition version with its instances by status and whether its stored document still matches
its checksum. Everything is counted by query at the platform clock's now.

Who sees what: ``workflow.admin`` sees every queue and the versions table; a holder of
``workflow.supervise`` who supervises units sees only the tasks of their units' queues (no
versions table: it counts every case), with a unit picker (``unit=``) to narrow it to one. A
unit outside the person's scope answers 404 like one that does not exist; anyone else is
refused (403).
"""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

from litestar import Controller, Request, Response, get

from contracts.errors import BadRequest, Forbidden
from core.charts import bar_chart
from core.i18n import gettext
from core.localtime import date_text, datetime_text, zone
from services.workflow.api.access import viewer_for
from services.workflow.api.dashboard import dashboard_of
from services.workflow.runtime.kernel.dashboard import (
    GroupBy,
    VersionState,
    WorkloadRow,
    window_at,
)
from services.workflow.runtime.ports.human import SUPERVISOR_PERMISSION
from services.workflow.runtime.services.units import SUPERVISE_PERMISSION, Scope
from services.workflow.ui.deadline_view import calendar_of
from services.workflow.ui.deps import inbox_of, scope_of
from services.workflow.ui.search import STATUSES
from services.workflow.ui.web import (
    SECURITY_HEADERS,
    page,
    page_requires_any,
    platform_of,
    ui_actor,
)

DASHBOARD = "/cms/workflow/dashboard"
GROUPS: tuple[GroupBy, ...] = ("queue", "definition")


def duration_text(seconds: float | None) -> str:
    """A median answer time at a glance: ``2 d 3 h``, ``4 h 10 min``, ``35 min``."""
    if seconds is None:
        return "—"
    minutes = max(0, round(seconds / 60))
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min"


def _group(params: dict[str, str]) -> GroupBy:
    by = params.get("by") or "queue"
    if by not in GROUPS:
        raise BadRequest("unknown grouping", code="invalid_group")
    return by


async def supervisor_scope(request: Request[Any, Any, Any]) -> Scope:
    """The person's scope; refused (403) when they oversee nothing."""
    scope = await scope_of(request, ui_actor(request).id)
    if not scope.supervisor:
        raise Forbidden("the user supervises no unit", code="not_a_supervisor")
    return scope


async def _measure(
    request: Request[Any, Any, Any], params: dict[str, str], scope: Scope
) -> tuple[GroupBy, list[WorkloadRow], dict[str, str], Any, list[VersionState]]:
    """(grouping, rows, human names by key, the window, the versions)."""
    by = _group(params)
    platform = platform_of(request)
    calendar = await calendar_of(request)
    tz = calendar.tz if calendar is not None else zone()
    window = window_at(platform.clock.now(), tz)
    reads = dashboard_of(request)
    in_view = scope.queues(params.get("unit") or None)
    viewer = await viewer_for(request, ui_actor(request).id)
    rows = await reads.workload(by, window, in_view, viewer=viewer)
    every_version = await reads.versions(viewer=viewer)
    versions = every_version if in_view is None else []
    if by == "queue":
        every = await inbox_of(request).queues(None)
        names = {q.key: q.name for q in every if in_view is None or q.key in in_view}
        if in_view is None:
            names[""] = gettext("Assigned to a person (no queue)")
    else:
        names = {v.definition_key: v.definition_name for v in every_version}
    key = params.get("key")
    if key:
        rows = [r for r in rows if r.key == key]
        if not rows and key not in names:
            raise BadRequest("unknown queue or definition", code="invalid_key")
        empty = WorkloadRow(
            key=key, open=0, due_this_week=0, overdue=0, answered=0, median_answer_s=None
        )
        rows = rows or [empty]
    return by, rows, names, window, versions


def _csv(by: GroupBy, rows: list[WorkloadRow], names: dict[str, str], measured: str) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(
        [
            gettext("Queue") if by == "queue" else gettext("Definition"),
            gettext("Name"),
            gettext("Open tasks"),
            gettext("Due this week"),
            gettext("Overdue tasks"),
            gettext("Answered (90 days)"),
            gettext("Median time to answer (hours)"),
            gettext("Measured at"),
        ]
    )
    for r in rows:
        median = "" if r.median_answer_s is None else f"{r.median_answer_s / 3600:.1f}"
        writer.writerow(
            [
                r.key,
                names.get(r.key, r.key),
                r.open,
                r.due_this_week,
                r.overdue,
                r.answered,
                median,
                measured,
            ]
        )
    return out.getvalue()


class DashboardController(Controller):
    path = DASHBOARD
    include_in_schema = False
    guards = [page_requires_any(SUPERVISOR_PERMISSION, SUPERVISE_PERMISSION)]

    @get("/")
    async def dashboard(self, request: Request[Any, Any, Any]) -> Response[Any]:
        params = {k: str(v) for k, v in request.query_params.items()}
        scope = await supervisor_scope(request)
        by, rows, names, window, versions = await _measure(request, params, scope)
        labels = [names.get(r.key, r.key) for r in rows]
        series = [gettext("Open tasks"), gettext("Due this week"), gettext("Overdue tasks")]
        total = sum(r.open for r in rows)
        chart = bar_chart(
            chart_id="workload-chart",
            title=gettext("Open tasks per queue")
            if by == "queue"
            else gettext("Open tasks per definition"),
            desc=gettext(
                "%(open)s open tasks, %(week)s due this week, %(late)s overdue. "
                "The table below gives the same numbers."
            )
            % {
                "open": total,
                "week": sum(r.due_this_week for r in rows),
                "late": sum(r.overdue for r in rows),
            },
            categories=labels,
            series=series,
            values=[[r.open, r.due_this_week, r.overdue] for r in rows],
        )
        keep = {k: v for k, v in params.items() if k in ("by", "key", "unit") and v}
        unit = params.get("unit") or ""
        return page(
            request,
            "dashboard.html",
            by=by,
            rows=rows,
            names=names,
            chart=chart,
            key=params.get("key") or "",
            unit=unit,
            unit_query=f"&unit={unit}" if unit else "",
            units=scope.units,
            admin=scope.admin,
            measured=datetime_text(window.now),
            week_ends=date_text(window.week_end - timedelta(seconds=1)),
            csv_url=f"{DASHBOARD}/export.csv" + (f"?{urlencode(keep)}" if keep else ""),
            duration=duration_text,
            versions=versions,
            status_label={k: gettext(v) for k, v in STATUSES.items()},
        )

    @get("/export.csv")
    async def export(self, request: Request[Any, Any, Any]) -> Response[str]:
        params = {k: str(v) for k, v in request.query_params.items()}
        scope = await supervisor_scope(request)
        by, rows, names, window, _versions = await _measure(request, params, scope)
        body = _csv(by, rows, names, datetime_text(window.now))
        return Response(
            content=body,
            media_type="text/csv; charset=utf-8",
            headers={
                **SECURITY_HEADERS,
                "content-disposition": f'attachment; filename="tramita-{by}.csv"',
                "cache-control": "private, no-store",
            },
        )
