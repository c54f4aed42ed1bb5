"""Every ``tramita_*`` hook, grouped by phase, and the ``hookimpl`` marker plugins use.

Plugins are discovered through the entry-point groups ``tramita.services`` (optional services
such as the workflow engine) and ``tramita.modules`` (domain modules). Registration hooks run
once at boot, in any order across plugins, and may only call their registrar; composition hooks
run after every registrar was frozen; lifecycle hooks run around the application's life.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from contracts.platform import PlatformContext
    from contracts.registries import (
        CaseViewRegistrar,
        CommandRegistrar,
        DataProviderRegistrar,
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
    from contracts.workflow.engine import WorkflowEngine

PROJECT = "tramita"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


# --- phase 1: registration --------------------------------------------------------------------


@hookspec
def tramita_register_permissions(registry: PermissionRegistrar) -> None:
    """Declare the permissions the plugin checks.

    Called once at boot, before any other registration hook result is used. May only call
    ``registry.add``; a key declared twice raises ``DuplicateRegistration`` naming the plugins.

    Implemented by every plugin that guards an action (``workflow.*``, ``diario.*``...).
    """


@hookspec
def tramita_register_migrations(registry: MigrationRegistrar) -> None:
    """Declare the plugin's Alembic branch so ``tramita db upgrade`` applies it.

    Called when the database is set up (``tramita db upgrade``, ``tramita run``/``demo``). The
    branch's revisions create only the plugin's own tables and never drop data on downgrade.

    Implemented by the kernel (users, audit), the workflow service and each module with tables.
    """


@hookspec
def tramita_register_workflows(registry: WorkflowRegistrar) -> None:
    """Register workflow definitions as data.

    Called at boot when the workflow service is installed; each definition is validated and
    published as an immutable version (publishing unchanged content is a no-op). Without the
    service the hook is never called, so a module keeps working in its plain mode.

    Implemented by domain modules (``diario.publicacao``, ``esic.pedido``...).
    """


@hookspec
def tramita_register_handlers(registry: HandlerRegistrar) -> None:
    """Register step handlers that ``service_task`` and ``notification`` nodes name.

    Called at boot, before definitions are validated (a definition naming an unregistered
    handler is refused). Handlers must be idempotent under the step's idempotency key.

    Implemented by domain modules and by integration plugins.
    """


@hookspec
def tramita_register_forms(registry: FormRegistrar) -> None:
    """Register versioned form schemas that human-task nodes name.

    Called at boot, before definitions are validated. A published form version never changes;
    change it by registering a new version.

    Implemented by domain modules.
    """


@hookspec
def tramita_register_document_types(registry: DocumentTypeRegistrar) -> None:
    """Register the document types a module's processes hold (answers, decisions, attachments).

    Called at boot, before definitions are validated: a node naming a document type in
    ``documents`` must name a registered one. A type's template (TipTap AST, never HTML) is
    checked then too: an unknown node or mark, or a placeholder outside the type's ``fields``,
    stops the boot with the path in the AST. A published ``template_version`` never changes.

    Implemented by domain modules whose processes produce or receive documents (e-SIC).
    """


@hookspec
def tramita_register_deadline_rules(registry: DeadlineRuleRegistrar) -> None:
    """Register legal deadline rules that timers and task SLAs name as ``deadline: {rule}``.

    Each is a ``contracts.workflow.legal.LegalRule`` (counting, days, roll-forward, receipt,
    extensions, legal basis).

    Called at boot, before definitions are validated: publishing refuses a definition naming a
    rule nobody registered. A city's configuration (``TRAMITA_WF_LEGAL_RULES``) may then
    override a registered rule or add its own.

    Implemented by domain modules whose processes have legal deadlines (e-SIC, Ouvidoria).
    """


@hookspec
def tramita_register_queues(registry: QueueRegistrar) -> None:
    """Declare human work queues (and their default members) that tasks are assigned to.

    Called at boot, before definitions are validated.

    Implemented by domain modules.
    """


@hookspec
def tramita_data_providers(registry: DataProviderRegistrar) -> None:
    """Register providers for the data rules declare in ``requires``.

    Called at boot, before definitions are validated. Providers run on the worker, before rule
    evaluation, with their own timeout; a rule only sees the context plus declared data.

    Implemented by domain modules that own registries (suppliers, budgets, sectors).
    """


@hookspec
def tramita_register_subjects(registry: SubjectRegistrar) -> None:
    """Register the listener that keeps a module's records in step with its instances.

    Called at boot. ``on_transition`` is delivered from the outbox after commit, at least once.

    Implemented by domain modules whose legal status follows a workflow.
    """


@hookspec
def tramita_register_case_views(registry: CaseViewRegistrar) -> None:
    """Register how a module describes its subjects beside a task's form.

    Called at boot when the workflow service is installed. Each ``CaseView`` serves one subject
    type (a second view for the same type raises ``DuplicateRegistration`` naming both
    plugins). The task and instance pages call ``describe`` with the subject, the viewer and
    their permissions; the module reads its own records and decides what the viewer may see
    of the requester. A view that raises never breaks the page.

    Implemented by domain modules whose instances have a subject (``esic.request``,
    ``diario.act``, ``noticias.news``...).
    """


@hookspec
def tramita_register_routes(registry: RouteRegistrar) -> None:
    """Mount HTTP routes (Litestar handlers, controllers or routers) on the application.

    Called when the web application is built (``tramita serve``/``run``). Every route declares
    the permission it needs.

    Implemented by the workflow service (``/api/v1``, ``/cms/workflow``) and modules.
    """


@hookspec
def tramita_register_commands(registry: CommandRegistrar) -> None:
    """Add subcommands to the ``tramita`` CLI (click commands or groups).

    Called when the CLI starts; a plugin that is not installed adds nothing, so ``tramita``
    works without the optional services.

    Implemented by the workflow service (``worker``, ``relay``, ``tick``, ``workflow``...).
    """


# --- phase 2: composition ---------------------------------------------------------------------


@hookspec(firstresult=True)
def tramita_workflow_engine(platform: PlatformContext) -> WorkflowEngine | None:
    """Build the workflow engine from the frozen registrations and the kernel services.

    Called once after every registration hook ran. The first non-``None`` result is the
    platform's engine; with no implementation the platform runs in plain mode and modules see
    ``platform.workflow is None``.

    Implemented by the workflow service only.
    """


# --- phase 3: lifecycle -----------------------------------------------------------------------


@hookspec
def tramita_startup(platform: PlatformContext) -> Any:
    """The platform finished composing; return an awaitable for async start-up work, or ``None``.

    Called once per process after composition, before serving or working; the kernel awaits
    what it returns (e.g. the service publishes registered definitions). Must not block.

    Implemented by plugins that need kernel services at run time (modules, the service).
    """


@hookspec
def tramita_shutdown(platform: PlatformContext) -> Any:
    """The process is stopping: return an awaitable that releases what the plugin started.

    Called once per process, in reverse registration order, after serving or working stopped;
    ``None`` means nothing to release.

    Implemented by the workflow service (relay, in-process delivery, broker connections).
    """


@hookspec
def tramita_demo_data(platform: PlatformContext) -> Any:
    """Return an awaitable that loads the plugin's demo data and runs its demo case.

    Called only by ``tramita demo``, never in production. The awaitable resolves to a list of
    printable summary lines.

    Implemented by domain modules.
    """
