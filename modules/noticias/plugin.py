"""Notícias hook implementations (entry point ``tramita.modules: noticias``)."""

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
    SubjectRegistrar,
    WorkflowRegistrar,
)
from modules.noticias.workflows import APROVACAO, FORMS, QUEUES

if TYPE_CHECKING:
    from modules.noticias.records import Runtime

MIGRATIONS = Path(__file__).parent / "migrations"


@cache
def _runtime() -> Runtime:
    from modules.noticias.records import Runtime

    return Runtime()


def __getattr__(name: str) -> Any:
    """``RUNTIME`` is built on first use, so importing the plugin stays cheap: the CLI imports
    every plugin to list its commands, and the module's code loads only in the hooks."""
    if name == "RUNTIME":
        return _runtime()
    raise AttributeError(name)


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
    from modules.noticias.handlers import PublishHandler

    registry.add("noticias.publish", PublishHandler(_runtime()))


@hookimpl
def tramita_register_subjects(registry: SubjectRegistrar) -> None:
    from modules.noticias.handlers import NewsSubject

    registry.add(NewsSubject(_runtime()))


@hookimpl
def tramita_register_case_views(registry: CaseViewRegistrar) -> None:
    from modules.noticias.handlers import NewsCase

    registry.add(NewsCase(_runtime()))


@hookimpl
def tramita_register_workflows(registry: WorkflowRegistrar) -> None:
    registry.add(APROVACAO)


@hookimpl
def tramita_startup(platform: PlatformContext) -> None:
    _runtime().bind(platform)


@hookimpl
def tramita_shutdown(platform: PlatformContext) -> None:
    _runtime().bind(None)


@hookimpl
def tramita_demo_data(platform: PlatformContext) -> Any:
    from modules.noticias.demo import run_demo

    return run_demo(platform)
