"""The module's hook implementations (entry point ``tramita.modules: alvara``).

Each hook only calls its registrar; the kernel collects what every plugin registered, and the
workflow service (when installed) publishes the definition and builds the queues and forms at
boot. Without the service only permissions, migrations and the lifecycle hooks are called, and
the module works in plain mode.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from contracts.hookspecs import hookimpl
from contracts.platform import PlatformContext
from contracts.registries import (
    FormRegistrar,
    HandlerRegistrar,
    MigrationRegistrar,
    PermissionRegistrar,
    QueueRegistrar,
    SubjectRegistrar,
    WorkflowRegistrar,
)
from tramita_alvara.workflow import FORMS, LICENCA, PERMISSIONS, QUEUES

if TYPE_CHECKING:
    from tramita_alvara.records import Runtime

MIGRATIONS = Path(__file__).parent / "migrations"


@cache
def _runtime() -> Runtime:
    from tramita_alvara.records import Runtime

    return Runtime()


def __getattr__(name: str) -> Any:
    """``RUNTIME`` is built on first use, so importing the plugin stays cheap: the CLI imports
    every plugin to list its commands, and the module's code loads only in the hooks."""
    if name == "RUNTIME":
        return _runtime()
    raise AttributeError(name)


@hookimpl
def tramita_register_permissions(registry: PermissionRegistrar) -> None:
    for key, description in PERMISSIONS.items():
        registry.add(key, description)


@hookimpl
def tramita_register_migrations(registry: MigrationRegistrar) -> None:
    registry.add("alvara", MIGRATIONS)


@hookimpl
def tramita_register_queues(registry: QueueRegistrar) -> None:
    for key, (name, permission) in QUEUES.items():
        registry.add(key, name, permission=permission)


@hookimpl
def tramita_register_forms(registry: FormRegistrar) -> None:
    for form in FORMS:
        registry.add(form)


@hookimpl
def tramita_register_handlers(registry: HandlerRegistrar) -> None:
    from tramita_alvara.handlers import handlers
    from tramita_alvara.tax import TaxSystem

    for name, handler in handlers(_runtime(), TaxSystem()).items():
        registry.add(name, handler)


@hookimpl
def tramita_register_subjects(registry: SubjectRegistrar) -> None:
    from tramita_alvara.handlers import LicenceSubject

    registry.add(LicenceSubject(_runtime()))


@hookimpl
def tramita_register_workflows(registry: WorkflowRegistrar) -> None:
    registry.add(LICENCA)


@hookimpl
def tramita_startup(platform: PlatformContext) -> None:
    _runtime().bind(platform)


@hookimpl
def tramita_shutdown(platform: PlatformContext) -> None:
    _runtime().bind(None)
