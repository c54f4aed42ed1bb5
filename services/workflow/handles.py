"""What the service's pages, API and commands reach: one typed object under one key.

The composition root (``bootstrap.build``) builds it and the plugin puts it in
``platform.extras[WORKFLOW_KEY]``; the web and the CLI read it through ``handles_of``. Importing
this module stays cheap: the types are named for the checker only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from contracts.errors import ServiceUnavailable
from core.tenancy import ACTING_TENANT

if TYPE_CHECKING:
    from services.workflow.documents import DocumentService
    from services.workflow.reads.api_reads import ApiReads
    from services.workflow.reads.dashboard import DashboardReads
    from services.workflow.reads.drafts import DraftStore
    from services.workflow.runtime.ports.telemetry import Telemetry
    from services.workflow.runtime.services.access import AccessPolicy
    from services.workflow.runtime.services.deadline_service import DeadlineService
    from services.workflow.runtime.services.engine import Engine
    from services.workflow.runtime.services.human_policy import Catalog
    from services.workflow.runtime.services.human_tasks import TaskService
    from services.workflow.runtime.services.inbox import Inbox
    from services.workflow.runtime.services.migration import Migrator
    from services.workflow.runtime.services.operations import OperationService
    from services.workflow.runtime.services.units import UnitService

WORKFLOW_KEY = "workflow"
PLACEMENTS_KEY = "workflow.placements"
"""``platform.extras`` key of ``tenant -> handles`` for the tenants on another database
(``TRAMITA_TENANT_DATABASES``, ``services.workflow.placements``); absent on one database."""


@dataclass(frozen=True, kw_only=True, eq=False)
class WorkflowHandles:
    """The service's parts a request or a command acts through (each built once, at boot)."""

    engine: Engine
    tasks: TaskService
    inbox: Inbox
    catalog: Catalog
    deadlines: DeadlineService
    units: UnitService
    documents: DocumentService
    operations: OperationService
    migrator: Migrator
    reads: ApiReads
    """The API's and pages' read model (search, histories, versions)."""
    dashboard: DashboardReads
    drafts: DraftStore
    telemetry: Telemetry
    """What the runtime records (``/metrics`` serves its registry outside multiprocess mode)."""
    access: AccessPolicy
    """The one authorisation point for reading a case (levels, grants)."""
    pools: frozenset[str] = frozenset()
    """Tenants with worker pools of their own (``TRAMITA_WF_TENANT_POOLS``): ``/metrics``
    counts their queued steps under the queue they are sent to, ``Q@tenant``."""


def handles_or_none(platform: Any) -> WorkflowHandles | None:
    """The handles, or ``None`` where the service is not running (plain mode): those of the
    acting tenant's database (``core.tenancy.ACTING_TENANT``) when that tenant is placed on
    another one."""
    found = platform.extras.get(WORKFLOW_KEY)
    placed = platform.extras.get(PLACEMENTS_KEY)
    if placed:
        found = placed.get(ACTING_TENANT.get(), found)
    return found if isinstance(found, WorkflowHandles) else None


def handles_of(platform: Any) -> WorkflowHandles:
    """The handles; ``ServiceUnavailable`` (503) where the service is not running."""
    found = handles_or_none(platform)
    if found is None:
        raise ServiceUnavailable(
            "the workflow service is not running in this process", port=WORKFLOW_KEY
        )
    return found
