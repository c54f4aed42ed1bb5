"""e-SIC/Ouvidoria hook implementations (entry point ``tramita.modules: esic``)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from contracts.hookspecs import hookimpl
from contracts.platform import PlatformContext
from contracts.registries import (
    CaseViewRegistrar,
    CommandRegistrar,
    DeadlineRuleRegistrar,
    DocumentTypeRegistrar,
    FormRegistrar,
    HandlerRegistrar,
    MigrationRegistrar,
    PermissionRegistrar,
    QueueRegistrar,
    RouteRegistrar,
    SubjectRegistrar,
    WorkflowRegistrar,
)
from modules.esic.config import appeal_instances
from modules.esic.forms import FORMS
from modules.esic.legal import RULES
from modules.esic.workflows import MANIFESTACAO, QUEUES, pedido

if TYPE_CHECKING:
    from modules.esic.notify import Runtime

MIGRATIONS = Path(__file__).parent / "migrations"


@cache
def _runtime() -> Runtime:
    from modules.esic.notify import Runtime

    return Runtime()


def __getattr__(name: str) -> Any:
    """``RUNTIME`` is built on first use, so importing the plugin stays cheap: the CLI imports
    every plugin to list its commands, and the module's code loads only in the hooks."""
    if name == "RUNTIME":
        return _runtime()
    raise AttributeError(name)


@hookimpl
def tramita_register_permissions(registry: PermissionRegistrar) -> None:
    registry.add("esic.answer", "Answer information requests")
    registry.add("esic.appeal", "Decide appeals")
    registry.add("esic.manage", "Route and extend requests")
    registry.add("ouvidoria.answer", "Answer ombudsman cases")
    from modules.esic.case import (
        CONTACT_PERMISSION,
        REQUEST_REVEAL_PERMISSION,
        REQUESTER_PERMISSION,
        REVEAL_PERMISSION,
    )

    registry.add(REQUESTER_PERMISSION, "See who made an information request (name, e-mail)")
    registry.add("esic.statistics", "See the e-SIC statistics and download its open data")
    registry.add(CONTACT_PERMISSION, "See the contact of an identified ombudsman case")
    registry.add(REVEAL_PERMISSION, "Reveal who filed a denúncia, with a reason (Lei 13.460/2017)")
    registry.add(
        REQUEST_REVEAL_PERMISSION,
        "Reveal who made an identity-protected information request, with a reason",
    )


@hookimpl
def tramita_register_migrations(registry: MigrationRegistrar) -> None:
    registry.add("esic", MIGRATIONS)


@hookimpl
def tramita_register_queues(registry: QueueRegistrar) -> None:
    for key, (name, members) in QUEUES.items():
        registry.add(key, name, members=members)


@hookimpl
def tramita_register_forms(registry: FormRegistrar) -> None:
    for form in FORMS:
        registry.add(form)


@hookimpl
def tramita_register_document_types(registry: DocumentTypeRegistrar) -> None:
    from modules.esic.documents import document_types

    for doc_type in document_types():
        registry.add(doc_type)


@hookimpl
def tramita_register_deadline_rules(registry: DeadlineRuleRegistrar) -> None:
    for rule in RULES:
        registry.add(rule)


@hookimpl
def tramita_register_handlers(registry: HandlerRegistrar) -> None:
    from modules.esic.notify import handlers

    for name, handler in handlers(_runtime()).items():
        registry.add(name, handler)


@hookimpl
def tramita_register_subjects(registry: SubjectRegistrar) -> None:
    from modules.esic.notify import subjects

    for subject in subjects(_runtime()):
        registry.add(subject)


@hookimpl
def tramita_register_case_views(registry: CaseViewRegistrar) -> None:
    from modules.esic.case import case_views

    for view in case_views(_runtime()):
        registry.add(view)


@hookimpl
def tramita_register_routes(registry: RouteRegistrar) -> None:
    from modules.esic.request_form import public_request_router
    from modules.esic.stats_pages import public_statistics_router, staff_statistics_router

    registry.add(staff_statistics_router())
    registry.add(public_statistics_router())
    registry.add(public_request_router())


@hookimpl
def tramita_register_commands(registry: CommandRegistrar) -> None:
    registry.lazy("esic", "modules.esic.cli:esic_group", "e-SIC: LAI statistics and open data.")


@hookimpl
def tramita_register_workflows(registry: WorkflowRegistrar) -> None:
    registry.add(pedido(appeal_instances()))  # the city's chain: TRAMITA_ESIC_APPEAL_INSTANCES
    registry.add(MANIFESTACAO)


@hookimpl
def tramita_startup(platform: PlatformContext) -> None:
    _runtime().bind(platform)


@hookimpl
def tramita_shutdown(platform: PlatformContext) -> None:
    _runtime().bind(None)


@hookimpl
def tramita_demo_data(platform: PlatformContext) -> Any:
    from modules.esic.demo import run_demo

    return run_demo(platform, _runtime())
