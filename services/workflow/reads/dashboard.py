"""The supervisor's dashboard read port (``persistence.dashboard_reads`` implements it; the
rows and the week are pure, in ``runtime.kernel.dashboard``)."""

from __future__ import annotations

from typing import Protocol

from services.workflow.runtime.kernel.dashboard import (
    GroupBy,
    VersionState,
    WorkloadRow,
    WorkloadWindow,
)
from services.workflow.runtime.ports.access import Viewer


class DashboardReads(Protocol):
    async def workload(
        self,
        by: GroupBy,
        window: WorkloadWindow,
        queues: frozenset[str] | None = None,
        *,
        viewer: Viewer | None = None,
    ) -> list[WorkloadRow]:
        """Open tasks (ready or claimed), due this week, overdue, answered and the median time
        to answer, grouped by the task's queue or the instance's definition, ordered by key;
        only the tasks of ``queues`` when given (a supervisor's units); with ``viewer``, only
        the tasks of cases that person may see (``runtime.services.access``), so a count never
        includes a hidden case."""
        ...

    async def versions(self, *, viewer: Viewer | None = None) -> list[VersionState]:
        """Every stored version with its instances counted by status, by key and version; with
        ``viewer``, only the instances that person may see are counted."""
        ...
