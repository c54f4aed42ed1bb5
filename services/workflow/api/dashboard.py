"""``/api/v1/dashboard/workload``: the deadlines dashboard's numbers for scripts and panels.

The same reads and the same scope as ``/cms/workflow/dashboard``: ``workflow.admin`` counts
every queue (or one unit's with ``unit=``), a holder of ``workflow.supervise`` who supervises
units counts only their units' queues; a unit outside one's view answers 404 like one that does
not exist, and someone who oversees nothing gets 403.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, get
from litestar.connection import ASGIConnection
from litestar.params import FromQuery, QueryParameter

from contracts.errors import Forbidden
from core.auth import actor_of
from core.localtime import zone
from services.workflow.api.access import tenant_of, viewer_for
from services.workflow.api.deps import platform_of
from services.workflow.api.human_deps import scope_of
from services.workflow.api.operation_runs import requires_any
from services.workflow.handles import handles_of, handles_or_none
from services.workflow.reads.dashboard import DashboardReads
from services.workflow.runtime.kernel.dashboard import GroupBy, WorkloadRow, window_at
from services.workflow.runtime.ports.human import SUPERVISOR_PERMISSION
from services.workflow.runtime.services.units import SUPERVISE_PERMISSION


def dashboard_of(connection: ASGIConnection[Any, Any, Any, Any]) -> DashboardReads:
    return handles_of(platform_of(connection)).dashboard


class WorkloadView(msgspec.Struct, frozen=True, kw_only=True):
    """Rows ordered by key; ``queues`` lists the queues counted (``null``: every queue)."""

    by: str
    unit: str | None
    queues: list[str] | None
    measured_at: datetime
    week_end: datetime
    rows: list[WorkloadRow]


class DashboardController(Controller):
    path = "/api/v1/dashboard"
    tags = ["tasks"]
    security = [{"bearer": []}]
    guards = [requires_any(SUPERVISOR_PERMISSION, SUPERVISE_PERMISSION)]

    @get("/workload")
    async def workload(
        self,
        request: Request[Any, Any, Any],
        by: FromQuery[GroupBy] = "queue",
        unit: Annotated[str | None, QueryParameter(max_length=100, pattern=r"^[^\x00]*$")] = None,
    ) -> WorkloadView:
        """Open tasks, due this week, overdue, answered in 90 days and the median time to
        answer, per queue or per definition, within the caller's view; the tasks of cases the
        caller may not see are not counted."""
        me = actor_of(request).id
        oversees = await scope_of(request, me)
        if not oversees.supervisor:
            raise Forbidden("the user supervises no unit", code="not_a_supervisor")
        in_view = oversees.queues(unit)
        platform = platform_of(request)
        handles = handles_or_none(platform)
        tz = (
            (await handles.deadlines.tenant_calendar(await tenant_of(request))).tz
            if handles is not None
            else zone(platform.settings.timezone)
        )
        window = window_at(platform.clock.now(), tz)
        viewer = await viewer_for(request, me)
        rows = await dashboard_of(request).workload(by, window, in_view, viewer=viewer)
        return WorkloadView(
            by=by,
            unit=unit,
            queues=None if in_view is None else sorted(in_view),
            measured_at=window.now,
            week_end=window.week_end,
            rows=rows,
        )
