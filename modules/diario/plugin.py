"""Diário Oficial's hook implementations (entry point ``tramita.modules: diario``)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from contracts.hookspecs import hookimpl
from contracts.platform import PlatformContext
from contracts.registries import (
    CaseViewRegistrar,
    FormRegistrar,
    HandlerRegistrar,
    MigrationRegistrar,
    PermissionRegistrar,
    QueueRegistrar,
    RouteRegistrar,
    SubjectRegistrar,
    WorkflowRegistrar,
)
from modules.diario.workflows import FORMS, PUBLICACAO, QUEUES

if TYPE_CHECKING:
    from modules.diario.records import Runtime

MIGRATIONS = Path(__file__).parent / "migrations"


@cache
def _runtime() -> Runtime:
    from modules.diario.records import Runtime

    return Runtime()


def __getattr__(name: str) -> Any:
    """``RUNTIME`` is built on first use, so importing the plugin stays cheap: the CLI imports
    every plugin to list its commands, and the module's code loads only in the hooks."""
    if name == "RUNTIME":
        return _runtime()
    raise AttributeError(name)


@hookimpl
def tramita_register_permissions(registry: PermissionRegistrar) -> None:
    registry.add("diario.write", "Write gazette acts")
    registry.add("diario.review", "Review gazette acts")
    registry.add("diario.approve", "Approve gazette acts")
    registry.add("diario.publish", "Publish gazette editions")


@hookimpl
def tramita_register_migrations(registry: MigrationRegistrar) -> None:
    registry.add("diario", MIGRATIONS)


@hookimpl
def tramita_register_queues(registry: QueueRegistrar) -> None:
    for key, (name, members) in QUEUES.items():
        registry.add(key, name, members=members)


@hookimpl
def tramita_register_forms(registry: FormRegistrar) -> None:
    for form in FORMS:
        registry.add(form)


@hookimpl
def tramita_register_handlers(registry: HandlerRegistrar) -> None:
    from modules.diario.handlers import PublishHandler

    registry.add("diario.publish", PublishHandler(_runtime()))


@hookimpl
def tramita_register_subjects(registry: SubjectRegistrar) -> None:
    from modules.diario.handlers import ActSubject

    registry.add(ActSubject(_runtime()))


@hookimpl
def tramita_register_case_views(registry: CaseViewRegistrar) -> None:
    from modules.diario.handlers import ActCase

    registry.add(ActCase(_runtime()))


@hookimpl
def tramita_register_routes(registry: RouteRegistrar) -> None:
    from modules.diario.public import public_diario_router

    registry.add(public_diario_router(_runtime()))


@hookimpl
def tramita_register_workflows(registry: WorkflowRegistrar) -> None:
    registry.add(PUBLICACAO)


@hookimpl
def tramita_startup(platform: PlatformContext) -> None:
    _runtime().bind(platform)


@hookimpl
def tramita_shutdown(platform: PlatformContext) -> None:
    _runtime().bind(None)


@hookimpl
def tramita_demo_data(platform: PlatformContext) -> Any:
    from modules.diario.demo import run_demo

    return run_demo(platform)
