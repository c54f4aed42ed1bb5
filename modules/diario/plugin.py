"""Diário Oficial's hook implementations (entry point ``tramita.modules: diario``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
from modules.diario.demo import run_demo
from modules.diario.handlers import ActCase, ActSubject, PublishHandler
from modules.diario.records import Runtime
from modules.diario.workflows import FORMS, PUBLICACAO, QUEUES

RUNTIME = Runtime()
MIGRATIONS = Path(__file__).parent / "migrations"


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
    registry.add("diario.publish", PublishHandler(RUNTIME))


@hookimpl
def tramita_register_subjects(registry: SubjectRegistrar) -> None:
    registry.add(ActSubject(RUNTIME))


@hookimpl
def tramita_register_case_views(registry: CaseViewRegistrar) -> None:
    registry.add(ActCase(RUNTIME))


@hookimpl
def tramita_register_routes(registry: RouteRegistrar) -> None:
    from modules.diario.public import public_diario_router

    registry.add(public_diario_router(RUNTIME))


@hookimpl
def tramita_register_workflows(registry: WorkflowRegistrar) -> None:
    registry.add(PUBLICACAO)


@hookimpl
def tramita_startup(platform: PlatformContext) -> None:
    RUNTIME.bind(platform)


@hookimpl
def tramita_shutdown(platform: PlatformContext) -> None:
    RUNTIME.bind(None)


@hookimpl
def tramita_demo_data(platform: PlatformContext) -> Any:
    return run_demo(platform)
