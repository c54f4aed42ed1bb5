"""Notícias hook implementations (entry point ``tramita.modules: noticias``)."""

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
    SubjectRegistrar,
    WorkflowRegistrar,
)
from modules.noticias.demo import run_demo
from modules.noticias.handlers import NewsCase, NewsSubject, PublishHandler
from modules.noticias.records import Runtime
from modules.noticias.workflows import APROVACAO, FORMS, QUEUES

RUNTIME = Runtime()
MIGRATIONS = Path(__file__).parent / "migrations"


@hookimpl
def tramita_register_permissions(registry: PermissionRegistrar) -> None:
    registry.add("noticias.write", "Write news")
    registry.add("noticias.edit", "Approve or reject news")


@hookimpl
def tramita_register_migrations(registry: MigrationRegistrar) -> None:
    registry.add("noticias", MIGRATIONS)


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
    registry.add("noticias.publish", PublishHandler(RUNTIME))


@hookimpl
def tramita_register_subjects(registry: SubjectRegistrar) -> None:
    registry.add(NewsSubject(RUNTIME))


@hookimpl
def tramita_register_case_views(registry: CaseViewRegistrar) -> None:
    registry.add(NewsCase(RUNTIME))


@hookimpl
def tramita_register_workflows(registry: WorkflowRegistrar) -> None:
    registry.add(APROVACAO)


@hookimpl
def tramita_startup(platform: PlatformContext) -> None:
    RUNTIME.bind(platform)


@hookimpl
def tramita_shutdown(platform: PlatformContext) -> None:
    RUNTIME.bind(None)


@hookimpl
def tramita_demo_data(platform: PlatformContext) -> Any:
    return run_demo(platform)
