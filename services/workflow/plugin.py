"""Entry-point target of the workflow service (``tramita.services: workflow``): hookimpls only.

Importing it must stay cheap (the CLI imports every plugin to list its commands): the service
is imported inside the hooks that build or start it."""

from __future__ import annotations

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
from contracts.workflow.documents import PROCESS_DOCUMENTS_KEY
from contracts.workflow.legal import LEGAL_DEADLINES_KEY
from contracts.workflow.task_records import TASK_RECORDS_KEY
from services.workflow.handles import PLACEMENTS_KEY, WORKFLOW_KEY

if TYPE_CHECKING:
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
        "workflow.classify",
        "Set a case's access level and grant or revoke access to it; see restricted cases",
    )
    registry.add(
        "workflow.tenants",
        "Act for any tenant, or for every tenant at once (platform administration)",
    )
    registry.add(
        "workflow.tasks.forward_any",
        "Forward tasks into any active queue, also those one is not a member of",
    )


@hookimpl
def tramita_register_migrations(registry: MigrationRegistrar) -> None:
    registry.add("workflow", MIGRATIONS)


@hookimpl
def tramita_workflow_engine(platform: PlatformContext) -> Engine:
    from services.workflow.bootstrap import build
    from services.workflow.health import broker_probe
    from services.workflow.placements import build_placed

    service = build(platform)
    platform.extras[WORKFLOW_KEY] = service
    if placed := build_placed(platform, service):
        platform.extras[PLACEMENTS_KEY] = placed
    platform.extras[BUSINESS_DAYS_KEY] = service.business_days
    platform.extras[LEGAL_DEADLINES_KEY] = service.legal_deadlines
    platform.extras[PROCESS_DOCUMENTS_KEY] = service.documents
    platform.extras[TASK_RECORDS_KEY] = service.task_records
    redis_url = platform.settings.redis_url
    if redis_url:
        platform.extras.setdefault("health_checks", {})["broker"] = broker_probe(redis_url)
    return service.engine


@hookimpl
def tramita_startup(platform: PlatformContext) -> Any:
    from services.workflow.bootstrap import WorkflowService
    from services.workflow.placements import every_service

    service = platform.extras.get(WORKFLOW_KEY)
    if not isinstance(service, WorkflowService):
        return None

    async def _start() -> list[str]:
        lines = await service.publish_registered()
        await publish_placed(platform)
        if platform.role == "server" and platform.settings.embedded:
            for each in every_service(service, platform.extras.get(PLACEMENTS_KEY, {})):
                each.start_embedded()
        return lines

    return _start()


async def publish_placed(platform: PlatformContext) -> None:
    """Publish the registered definitions on each placed database that answers; one that does
    not is logged and published on the next boot (its tenants wait, the others do not)."""
    import structlog

    from services.workflow.placements import database_label, every_service

    home = platform.extras[WORKFLOW_KEY]
    for service in every_service(home, platform.extras.get(PLACEMENTS_KEY, {}))[1:]:
        try:
            await service.publish_registered()
        except Exception as exc:  # noqa: BLE001 - the other databases' tenants go on
            structlog.get_logger("tramita.placement").warning(
                "tenant_database_unavailable",
                database=database_label(service.database),
                error_type=type(exc).__name__,
            )


@hookimpl
def tramita_shutdown(platform: PlatformContext) -> Any:
    from services.workflow.bootstrap import WorkflowService
    from services.workflow.placements import every_service

    service = platform.extras.get(WORKFLOW_KEY)
    if not isinstance(service, WorkflowService):
        return None
    services = every_service(service, platform.extras.get(PLACEMENTS_KEY, {}))

    async def _close() -> None:
        for each in services:
            await each.close()

    return _close()


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
