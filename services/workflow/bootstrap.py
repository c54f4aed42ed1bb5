"""The composition root of the workflow service: builds the engine from what the kernel froze.

The service never sees a module: it receives the registrations (handlers, forms, queues,
providers, subjects, definitions) through ``contracts.platform.PlatformContext``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import msgspec
import structlog

from contracts.errors import ConfigurationError
from contracts.kernel import Actor
from contracts.platform import PlatformContext
from core.documents.storage import FilesystemBlobStore
from core.i18n import N_, add_catalog_directory
from services.workflow.calendar import Calendar, CalendarSpec, seal_spec
from services.workflow.definition import KnownNames
from services.workflow.definition.ports import BUILTIN_QUEUES
from services.workflow.delivery.dispatch import Dispatcher
from services.workflow.delivery.inprocess import InProcessDelivery
from services.workflow.documents import DocumentService, DocumentType
from services.workflow.handles import WorkflowHandles, handles_of
from services.workflow.metrics import PrometheusTelemetry
from services.workflow.numbering import tenant_numbering_of
from services.workflow.persistence.boot_lock import publishing_turn
from services.workflow.persistence.dashboard_reads import SqlDashboardReads
from services.workflow.persistence.documents_repo import SqlDocumentRepo
from services.workflow.persistence.drafts_repo import SqlDraftStore
from services.workflow.persistence.inbox_repo import SqlInboxQuery
from services.workflow.persistence.search_repo import SqlApiReads
from services.workflow.persistence.task_records import SqlTaskRecords
from services.workflow.persistence.unit_of_work import SqlUnitOfWork
from services.workflow.rules import RuleEngine
from services.workflow.runtime.ports import UnitOfWork
from services.workflow.runtime.ports.deadlines import DeadlineStore
from services.workflow.runtime.ports.human import HumanStore
from services.workflow.runtime.ports.operations import OperationStore
from services.workflow.runtime.ports.telemetry import Telemetry
from services.workflow.runtime.ports.units import UnitStore
from services.workflow.runtime.services.access import DEFAULT_GROUNDS, AccessPolicy
from services.workflow.runtime.services.applier import Applier
from services.workflow.runtime.services.deadline_notices import DeadlineNotices
from services.workflow.runtime.services.deadline_service import DeadlineService
from services.workflow.runtime.services.engine import Engine
from services.workflow.runtime.services.executor import MAX_CHAIN, Executor
from services.workflow.runtime.services.human_policy import Catalog, TaskGuard
from services.workflow.runtime.services.human_tasks import TaskService
from services.workflow.runtime.services.inbox import Inbox
from services.workflow.runtime.services.legal_time import BusinessDays, LegalTime
from services.workflow.runtime.services.migration import Migrator
from services.workflow.runtime.services.operations import OperationService
from services.workflow.runtime.services.publishing import ModelCompiler
from services.workflow.runtime.services.tenant_calendars import tenant_calendars
from services.workflow.runtime.services.units import UnitService
from services.workflow.settings import (
    LegalSettings,
    WorkflowSettings,
    access_grounds,
    load_settings,
)

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

log = structlog.get_logger("tramita.workflow")
LOCALES = Path(__file__).parent / "locale"
"""The service's gettext catalogs (``locale/<lang>/LC_MESSAGES/messages.po``)."""

NATIONAL_CALENDAR = CalendarSpec(key="br-national", version=1)


def known_names(platform: PlatformContext, legal: LegalSettings) -> KnownNames:
    regs = platform.registrations
    forms: set[str] = set()
    for form in regs.forms:
        forms.add(str(form.get("key")))
        forms.add(f"{form.get('key')}@{form.get('version')}")
    return KnownNames(
        handlers=frozenset(regs.handlers),
        forms=frozenset(forms),
        queues=frozenset(regs.queues) | BUILTIN_QUEUES,
        providers=frozenset(regs.data_providers),
        deadline_rules=frozenset(legal.rules),
        extendable_rules=frozenset(k for k, r in legal.rules.items() if r.max_extensions > 0),
        document_types=frozenset(str(t.get("key")) for t in regs.document_types),
    )


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


@dataclass(frozen=True, kw_only=True, eq=False)
class WorkflowService(WorkflowHandles):
    """Everything the service runs in one process: the handles the web and the commands act
    through, and what delivers, executes and ticks behind them."""

    platform: PlatformContext
    database: AsyncEngine
    """Where this service's cases live: the platform's database, or a placed tenant's."""
    settings: WorkflowSettings
    rules: RuleEngine
    executor: Executor
    delivery: InProcessDelivery
    legal: LegalTime
    uow_factory: Callable[[], SqlUnitOfWork]
    dispatcher: Dispatcher
    business_days: BusinessDays
    legal_deadlines: DeadlineNotices
    task_records: SqlTaskRecords
    running: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    """The embedded timer tick, while ``start_embedded`` has it running."""

    async def publish_registered(self) -> list[str]:
        """Publish the definitions modules registered (unchanged ones are no-ops); one
        booting process at a time (``persistence.boot_lock``)."""
        async with publishing_turn(self.database):
            return await self._publish_registered()

    async def _publish_registered(self) -> list[str]:
        regs = self.platform.registrations
        lines = await self.catalog.sync(regs.queues, regs.forms, actor=Actor.system("boot"))
        lines += await self.units.sync(regs.units, regs.queue_units, actor=Actor.system("boot"))
        await self.deadlines.publish_calendar(seal_spec(NATIONAL_CALENDAR), Actor.system("boot"))
        for doc_type in regs.document_types:
            typed = msgspec.convert(dict(doc_type), DocumentType)
            if typed.access is not None:  # its default level's ground is on the list
                self.access.documents.check(typed.access.level, typed.access.ground)
            if await self.documents.register_type(typed):
                lines.append(f"document type {doc_type.get('key')}")
        for definition in regs.workflows:
            version, created = await self.engine.publisher.publish(
                dict(definition), actor=Actor.system("boot")
            )
            lines.append(f"{version.key} v{version.version}{' (new)' if created else ''}")
        return lines

    def handing_over(self, queues: frozenset[str], max_chain: int) -> Dispatcher:
        """What a worker consuming ``queues`` dispatches through: an executor of its own that
        runs the next step on one of those queues itself, up to ``max_chain`` in a row."""
        executor = step_executor(
            self.platform,
            self.settings,
            self.engine,
            self.uow_factory,
            self.telemetry,
            eager_queues=queues,
            max_chain=max_chain,
        )
        return self.dispatcher.with_executor(executor)

    async def settle(self) -> None:
        """On the embedded defaults a one-shot command delivers what it caused before it
        exits; with Redis configured the relay and the workers do that."""
        if self.platform.settings.embedded:
            await self.delivery.drain()

    def start_embedded(self) -> None:
        """In a long-running process without Redis: deliver in-process and tick timers."""
        self.delivery.start()
        loop_task = asyncio.create_task(self._tick_forever(), name="tramita-embedded-tick")
        self.running["tick_task"] = loop_task

    async def _tick_forever(self) -> None:
        while True:
            try:
                if await self.engine.tick():
                    self.delivery.wakeup()
            except Exception:
                log.exception("embedded_tick_failed")
            await asyncio.sleep(self.settings.tick_interval_s)

    async def close(self) -> None:
        task = self.running.pop("tick_task", None)
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.delivery.stop()


def service_of(platform: PlatformContext) -> WorkflowService:
    """The service built for this platform (what the plugin put under ``WORKFLOW_KEY``)."""
    found = handles_of(platform)
    assert isinstance(found, WorkflowService)
    return found


def jurisdiction_zone(name: str) -> ZoneInfo:
    """``settings.timezone`` (``TRAMITA_TIMEZONE``) as a zone; an unknown name stops the boot."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ConfigurationError(N_("TRAMITA_TIMEZONE is not a known time zone.")) from exc


def step_executor(
    platform: PlatformContext,
    settings: WorkflowSettings,
    engine: Engine,
    uow: Callable[[], UnitOfWork],
    telemetry: Telemetry,
    *,
    eager_queues: frozenset[str] = frozenset(),
    max_chain: int = MAX_CHAIN,
) -> Executor:
    """The executor of this process's step runs; a worker passes the queues it consumes as
    ``eager_queues`` (see ``WorkflowService.handing_over``)."""
    return Executor(
        engine=engine,
        uow_factory=uow,
        clock=platform.clock,
        handlers=platform.registrations.handlers,
        providers=platform.registrations.data_providers,
        worker_id=worker_id(),
        table_evaluator=lambda table, variables: dict(table(variables)),  # type: ignore[operator]
        lease_margin=settings.lease_margin,
        telemetry=telemetry,
        eager_queues=eager_queues,
        max_chain=max_chain,
    )


def build(
    platform: PlatformContext,
    settings: WorkflowSettings | None = None,
    *,
    database: AsyncEngine | None = None,
    telemetry: Telemetry | None = None,
) -> WorkflowService:
    """The service's one composition root: every part gets what it needs through its
    constructor; ``settings`` defaults to the environment's, read here once. ``database``: a
    placed tenant's (``services.workflow.placements``), else the platform's with its replica;
    ``telemetry``: the process's, shared by the services of several databases."""
    regs = platform.registrations
    settings = settings or load_settings(regs.deadline_rules)
    db = platform.database if database is None else database
    reader = platform.read_database if db is platform.database else db
    clock, ids = platform.clock, platform.ids
    # The service's messages (refusals, labels, e-mails) in the person's language, everywhere.
    add_catalog_directory(LOCALES)

    def uow() -> SqlUnitOfWork:
        return SqlUnitOfWork(db, clock, ids, platform.audit)

    def deadline_store(unit: UnitOfWork) -> DeadlineStore:
        return unit.deadlines

    def operation_store(unit: UnitOfWork) -> OperationStore:
        return unit.operations

    def human_store(unit: UnitOfWork) -> HumanStore:
        return unit.human

    def unit_store(unit: UnitOfWork) -> UnitStore:
        return unit.units

    rules = RuleEngine()
    compiler = ModelCompiler(known_names(platform, settings.legal), rules, rules)
    calendar = Calendar.from_spec(seal_spec(NATIONAL_CALENDAR))
    legal = LegalTime(
        calendar,
        settings.legal.rules,
        settings.legal.receipt,
        deadline_store,
        calendar_key=settings.calendar,
        tenant_calendars=tenant_calendars(
            settings.tenant_calendars, tenant=platform.settings.tenant
        ),
    )
    guard = TaskGuard(
        permissions=platform.permissions,
        compiler=compiler,
        expressions=rules,
        forward_targets=regs.forward_targets,
    )

    async def pin_form(unit: UnitOfWork, reference: str) -> str:
        return await guard.pin(human_store(unit), reference)

    telemetry = telemetry or PrometheusTelemetry()
    applier = Applier(
        ids, calendar, legal, telemetry=telemetry, pin_form=pin_form, pools=settings.pools
    )
    # One signal, set after each commit that leaves work; the in-process delivery waits on it.
    wake = asyncio.Event()

    def task_service(engine: Engine) -> TaskService:
        return TaskService(
            uow_factory=uow,
            store=human_store,
            clock=clock,
            ids=ids,
            guard=guard,
            compiler=compiler,
            apply_in=engine.apply_in,
            wakeup=wake.set,
        )

    postgresql = db.dialect.name == "postgresql"
    engine = Engine(
        uow_factory=uow,
        clock=clock,
        ids=ids,
        compiler=compiler,
        applier=applier,
        human=task_service,
        wakeup=wake.set,
        tenant=platform.settings.tenant,
        zone=jurisdiction_zone(platform.settings.timezone),
        numbering=tenant_numbering_of(settings, platform.settings.tenant),
        tick_concurrency=max(1, settings.tick_concurrency) if postgresql else 1,
        max_context_bytes=settings.max_context_bytes,
    )
    tasks = engine.human
    assert tasks is not None
    executor = step_executor(platform, settings, engine, uow, telemetry)
    migrator = Migrator(engine, uow)
    operations = OperationService(
        uow_factory=uow,
        store=operation_store,
        clock=clock,
        ids=ids,
        tenant=platform.settings.tenant,
        tasks=tasks,
        migrator=migrator,
        wakeup=wake.set,
        runner_name=worker_id(),
        lease=timedelta(seconds=settings.operation_lease_s),
        chunk=settings.operation_chunk,
        threshold=settings.operation_threshold,
        always=settings.background_always,
        abandon_letter=engine.abandon,
    )
    runs, calls = operations.run, engine.child_returned
    dispatcher = Dispatcher(executor, regs.subjects, uow, clock, operations=runs, returned=calls)
    delivery = InProcessDelivery(
        uow,
        clock,
        dispatcher,
        wake=wake,
        recover=executor.recover_expired,
        stranded_after=settings.stranded_after,
        sweeps=(operations.sweep,),
        pools=settings.pools,
    )
    return WorkflowService(
        platform=platform,
        database=db,
        settings=settings,
        rules=rules,
        engine=engine,
        executor=executor,
        delivery=delivery,
        tasks=tasks,
        inbox=Inbox(SqlInboxQuery(db, clock), clock),
        catalog=Catalog(
            uow_factory=uow, store=human_store, clock=clock, ids=ids, expressions=rules
        ),
        deadlines=DeadlineService(uow_factory=uow, store=deadline_store, clock=clock, legal=legal),
        legal=legal,
        documents=DocumentService(
            SqlDocumentRepo(uow), FilesystemBlobStore(settings.documents_dir), clock
        ),
        units=UnitService(uow_factory=uow, store=unit_store, clock=clock),
        access=AccessPolicy(
            uow_factory=uow,
            clock=clock,
            ids=ids,
            grounds=access_grounds(settings.access_grounds, DEFAULT_GROUNDS),
        ),
        operations=operations,
        migrator=migrator,
        reads=SqlApiReads(db, clock, replica=reader),
        dashboard=SqlDashboardReads(reader, clock),
        drafts=SqlDraftStore(uow, clock, ids),
        telemetry=telemetry,
        pools=settings.pools,
        uow_factory=uow,
        dispatcher=dispatcher,
        business_days=BusinessDays(legal),
        legal_deadlines=DeadlineNotices(uow, legal),
        task_records=SqlTaskRecords(db),
    )
