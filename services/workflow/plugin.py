"""Entry-point target of the workflow service (``tramita.services: workflow``): hookimpls only.

Importing it must stay cheap (the CLI imports every plugin to list its commands): the service
is imported inside the hooks that build or start it."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from contracts.calendar import BUSINESS_DAYS_KEY
from contracts.hookspecs import hookimpl
from contracts.platform import PlatformContext
from contracts.registries import (
    CommandRegistrar,
    MigrationRegistrar,
    PermissionRegistrar,
    RouteRegistrar,
)
from contracts.workflow.legal import LEGAL_DEADLINES_KEY

if TYPE_CHECKING:
    from services.workflow.bootstrap import WorkflowService
    from services.workflow.runtime.services.engine import Engine

MIGRATIONS = Path(__file__).parent / "persistence" / "migrations"


@hookimpl
def tramita_register_permissions(registry: PermissionRegistrar) -> None:
    registry.add("workflow.read", "See workflow definitions, instances and history")
    registry.add("workflow.publish", "Publish and archive workflow versions")
    registry.add("workflow.start", "Start workflow instances")
    registry.add("workflow.cancel", "Cancel workflow instances")
    registry.add("workflow.operate", "Reprocess dead letters, repair and migrate instances")
    registry.add("workflow.tasks", "Work on human tasks of queues one is a member of")
    registry.add("workflow.admin", "Manage queues, members and calendars")
    registry.add(
        "workflow.supervise",
        "Oversee every queue of the units one supervises (inbox and dashboard)",
    )
    registry.add(
        "workflow.tasks.forward_any",
        "Forward tasks into any active queue, also those one is not a member of",
    )


@hookimpl
def tramita_register_migrations(registry: MigrationRegistrar) -> None:
    registry.add("workflow", MIGRATIONS)


_services: dict[int, WorkflowService] = {}


def service_of(platform: PlatformContext) -> WorkflowService:
    """The service built for this platform (one per process)."""
    return _services[id(platform)]


@hookimpl
def tramita_workflow_engine(platform: PlatformContext) -> Engine:
    from services.workflow.bootstrap import build
    from services.workflow.persistence.dashboard_reads import SqlDashboardReads
    from services.workflow.persistence.drafts_repo import SqlDraftStore
    from services.workflow.persistence.migration_repo import SqlMigrationQueries
    from services.workflow.persistence.search_repo import SqlApiReads
    from services.workflow.runtime.services.deadline_notices import DeadlineNotices
    from services.workflow.runtime.services.migration import Migrator

    service = build(platform)
    _services[id(platform)] = service
    # The API reads through a port; only the composition root may hand it an SQL adapter.
    # The keys are spelled here (each beside the module that reads it): importing ``api`` or
    # ``ui`` would load Litestar and every controller into commands that serve no HTTP.
    platform.extras["workflow.api_reads"] = SqlApiReads(platform.database)  # api.deps.READS_KEY
    platform.extras["workflow.inbox"] = service.inbox  # ui.deps.INBOX_KEY
    platform.extras["workflow.dashboard"] = SqlDashboardReads(platform.database)  # ui.dashboards
    platform.extras["workflow.tasks"] = service.tasks  # api.human_deps.TASKS_KEY
    platform.extras["workflow.deadlines"] = service.deadlines  # api.deadlines.DEADLINES_KEY
    platform.extras["workflow.catalog"] = service.catalog  # api.queues.CATALOG_KEY
    platform.extras["workflow.units"] = service.units  # ui.deps.UNITS_KEY
    platform.extras["workflow.documents"] = service.documents  # api.documents.DOCUMENTS_KEY
    platform.extras["workflow.migrator"] = Migrator(  # api.migrations.MIGRATOR_KEY
        service.engine, SqlMigrationQueries()
    )
    platform.extras["workflow.operations"] = service.operations  # api.operation_runs.OPERATIONS_KEY
    drafts = SqlDraftStore(platform.database, platform.clock, platform.ids)
    platform.extras["workflow.drafts"] = drafts  # reads.drafts.DRAFTS_KEY
    platform.extras[BUSINESS_DAYS_KEY] = _BusinessDays(service)  # contracts.calendar
    assert service.uow_factory is not None  # build() always sets it
    notices = DeadlineNotices(service.uow_factory, service.legal)
    platform.extras[LEGAL_DEADLINES_KEY] = notices  # contracts.workflow.legal
    redis_url = platform.settings.redis_url
    if redis_url:
        platform.extras.setdefault("health_checks", {})["broker"] = _broker_probe(redis_url)
    return service.engine


class _BusinessDays:
    """The jurisdiction calendar in force, read at each call (it may be revised)."""

    def __init__(self, service: WorkflowService) -> None:
        self._service = service

    def is_business_day(self, day: date) -> bool:
        return self._service.legal.calendar.is_business_day(day)


def _broker_probe(redis_url: str) -> Any:
    """``/health`` pings the broker the relay and workers depend on."""

    async def probe() -> None:
        import redis.asyncio

        client = redis.asyncio.Redis.from_url(redis_url, socket_connect_timeout=2)
        try:
            await client.ping()
        finally:
            await client.aclose()

    return probe


@hookimpl
def tramita_startup(platform: PlatformContext) -> Any:
    service = _services.get(id(platform))
    if service is None:
        return None

    async def _start() -> list[str]:
        lines = await service.publish_registered()
        if platform.role == "server" and platform.settings.embedded:
            service.start_embedded()
        return lines

    return _start()


@hookimpl
def tramita_shutdown(platform: PlatformContext) -> Any:
    service = _services.pop(id(platform), None)
    return None if service is None else service.close()


@hookimpl
def tramita_register_commands(registry: CommandRegistrar) -> None:
    from services.workflow.cli.index import COMMANDS

    for name, target, help_text in COMMANDS:
        registry.lazy(name, target, help_text)


@hookimpl
def tramita_register_routes(registry: RouteRegistrar) -> None:
    from services.workflow.routes import ROUTES

    for route in ROUTES:
        registry.add(route)
