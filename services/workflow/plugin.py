"""Entry-point target of the workflow service (``tramita.services: workflow``): hookimpls only."""

from __future__ import annotations

from pathlib import Path

from contracts.hookspecs import hookimpl
from contracts.registries import MigrationRegistrar, PermissionRegistrar

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


@hookimpl
def tramita_register_migrations(registry: MigrationRegistrar) -> None:
    registry.add("workflow", MIGRATIONS)
