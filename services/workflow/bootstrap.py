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
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import msgspec
import structlog

from contracts.errors import ConfigurationError
from contracts.kernel import Actor
from contracts.platform import PlatformContext
from core.documents.storage import FilesystemBlobStore
from core.i18n import N_
from services.workflow.calendar import Calendar, CalendarSpec, seal_spec
from services.workflow.config import WorkflowConfig, load_config
from services.workflow.definition import KnownNames
from services.workflow.definition.ports import BUILTIN_QUEUES
from services.workflow.delivery.dispatch import Dispatcher
from services.workflow.delivery.inprocess import InProcessDelivery
from services.workflow.documents import DocumentService, DocumentType
from services.workflow.legal_config import LegalSettings, legal_settings
from services.workflow.metrics import TELEMETRY_KEY, PrometheusTelemetry
from services.workflow.persistence.deadlines_repo import SqlDeadlineRepo
from services.workflow.persistence.documents_repo import SqlDocumentRepo
from services.workflow.persistence.human_repo import SqlHumanRepo
from services.workflow.persistence.inbox_repo import SqlInboxQuery
from services.workflow.persistence.migration_repo import SqlMigrationQueries
from services.workflow.persistence.operations_repo import SqlOperationStore
from services.workflow.persistence.unit_of_work import SqlUnitOfWork
from services.workflow.persistence.units_repo import SqlUnitRepo
from services.workflow.rules import RuleEngine
from services.workflow.runtime.ports import UnitOfWork
from services.workflow.runtime.services.applier import Applier
from services.workflow.runtime.services.deadline_service import DeadlineService
from services.workflow.runtime.services.engine import Engine
from services.workflow.runtime.services.executor import Executor
from services.workflow.runtime.services.human_policy import Catalog, TaskGuard
from services.workflow.runtime.services.human_tasks import TaskService
from services.workflow.runtime.services.inbox import Inbox
from services.workflow.runtime.services.legal_time import LegalTime
from services.workflow.runtime.services.migration import Migrator
from services.workflow.runtime.services.operations import OperationService
from services.workflow.runtime.services.publishing import ModelCompiler
from services.workflow.runtime.services.units import UnitService

log = structlog.get_logger("tramita.workflow")
NATIONAL_CALENDAR = CalendarSpec(key="br-national", version=1)


def known_names(platform: PlatformContext, legal: LegalSettings | None = None) -> KnownNames:
    regs = platform.registrations
    rules = (legal or legal_settings(regs.deadline_rules)).rules
    forms: set[str] = set()
    for form in regs.forms:
        forms.add(str(form.get("key")))
        forms.add(f"{form.get('key')}@{form.get('version')}")
    return KnownNames(
        handlers=frozenset(regs.handlers),
        forms=frozenset(forms),
        queues=frozenset(regs.queues) | BUILTIN_QUEUES,
        providers=frozenset(regs.data_providers),
        deadline_rules=frozenset(rules),
        extendable_rules=frozenset(k for k, rule in rules.items() if rule.max_extensions > 0),
        document_types=frozenset(str(t.get("key")) for t in regs.document_types),
    )


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


@dataclass
class WorkflowService:
    """Everything the service runs in one process; the engine is its public face."""

    platform: PlatformContext
    rules: RuleEngine
    engine: Engine
    executor: Executor
    delivery: InProcessDelivery
    tasks: TaskService
    inbox: Inbox
    catalog: Catalog
    deadlines: DeadlineService
    legal: LegalTime
    documents: DocumentService
    units: UnitService
    config: WorkflowConfig = field(default_factory=WorkflowConfig)
    uow_factory: Callable[[], SqlUnitOfWork] | None = None
    dispatcher: Dispatcher | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    operations: OperationService | None = None

    async def publish_registered(self) -> list[str]:
        """Publish the definitions modules registered (unchanged ones are no-ops)."""
        regs = self.platform.registrations
        lines = await self.catalog.sync(regs.queues, regs.forms, actor=Actor.system("boot"))
        lines += await self.units.sync(regs.units, regs.queue_units, actor=Actor.system("boot"))
        await self.deadlines.publish_calendar(seal_spec(NATIONAL_CALENDAR), Actor.system("boot"))
        for doc_type in regs.document_types:
            if await self.documents.register_type(msgspec.convert(dict(doc_type), DocumentType)):
                lines.append(f"document type {doc_type.get('key')}")
        for definition in regs.workflows:
            version, created = await self.engine.publisher.publish(
                dict(definition), actor=Actor.system("boot")
            )
            lines.append(f"{version.key} v{version.version}{' (new)' if created else ''}")
        return lines

    async def settle(self) -> None:
        """On the embedded defaults a one-shot command delivers what it caused before it
        exits; with Redis configured the relay and the workers do that."""
        if self.platform.settings.embedded:
            await self.delivery.drain()

    def start_embedded(self) -> None:
        """In a long-running process without Redis: deliver in-process and tick timers."""
        self.delivery.start()
        loop_task = asyncio.create_task(self._tick_forever(), name="tramita-embedded-tick")
        self.extras["tick_task"] = loop_task

    async def _tick_forever(self) -> None:
        while True:
            try:
                if await self.engine.tick():
                    self.delivery.wakeup()
            except Exception:
                log.exception("embedded_tick_failed")
            await asyncio.sleep(self.config.tick_interval_s)

    async def close(self) -> None:
        task = self.extras.pop("tick_task", None)
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.delivery.stop()


def jurisdiction_zone(name: str) -> ZoneInfo:
    """``settings.timezone`` (``TRAMITA_TIMEZONE``) as a zone; an unknown name stops the boot."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ConfigurationError(N_("TRAMITA_TIMEZONE is not a known time zone.")) from exc


def build(platform: PlatformContext, config: WorkflowConfig | None = None) -> WorkflowService:
    config = config or load_config()
    clock, ids = platform.clock, platform.ids

    def uow() -> SqlUnitOfWork:
        return SqlUnitOfWork(platform.database, clock, ids, platform.audit)

    rules = RuleEngine()
    legal_rules = legal_settings(platform.registrations.deadline_rules, config.legal_rules)
    compiler = ModelCompiler(known_names(platform, legal_rules), rules, rules)
    calendar = Calendar.from_spec(seal_spec(NATIONAL_CALENDAR))

    def deadline_store(unit: UnitOfWork) -> SqlDeadlineRepo:
        assert isinstance(unit, SqlUnitOfWork)
        return SqlDeadlineRepo(unit.conn)

    legal = LegalTime(
        calendar,
        legal_rules.rules,
        legal_rules.receipt,
        deadline_store,
        calendar_key=config.calendar,
    )
    telemetry = platform.extras[TELEMETRY_KEY] = PrometheusTelemetry()
    engine_applier = Applier(ids, calendar, legal, telemetry=telemetry)
    engine = Engine(
        uow_factory=uow,
        clock=clock,
        ids=ids,
        compiler=compiler,
        applier=engine_applier,
        tenant=platform.settings.tenant,
        zone=jurisdiction_zone(platform.settings.timezone),
    )
    engine.max_context_bytes = config.max_context_bytes
    if platform.database.dialect.name == "postgresql":
        engine.tick_concurrency = max(1, config.tick_concurrency)
    executor = Executor(
        engine=engine,
        uow_factory=uow,
        clock=clock,
        handlers=platform.registrations.handlers,
        providers=platform.registrations.data_providers,
        worker_id=worker_id(),
        table_evaluator=lambda table, variables: dict(table(variables)),  # type: ignore[operator]
        lease_margin=config.lease_margin,
        telemetry=telemetry,
    )

    def operation_store(unit: UnitOfWork) -> SqlOperationStore:
        assert isinstance(unit, SqlUnitOfWork)
        return SqlOperationStore(unit.conn)

    def human_store(unit: UnitOfWork) -> SqlHumanRepo:
        assert isinstance(unit, SqlUnitOfWork)
        return SqlHumanRepo(unit.conn)

    guard = TaskGuard(
        permissions=platform.permissions,
        compiler=compiler,
        expressions=rules,
        forward_targets=platform.registrations.forward_targets,
    )
    tasks = TaskService(
        uow_factory=uow,
        store=human_store,
        clock=clock,
        ids=ids,
        guard=guard,
        compiler=compiler,
        apply_in=engine.apply_in,
        wakeup=lambda: engine.wakeup(),
    )
    engine.human = tasks

    async def pin_form(unit: UnitOfWork, reference: str) -> str:
        return await guard.pin(human_store(unit), reference)

    engine_applier.pin_form = pin_form
    operations = OperationService(
        uow_factory=uow,
        store=operation_store,
        clock=clock,
        ids=ids,
        tenant=platform.settings.tenant,
        tasks=tasks,
        migrator=Migrator(engine, SqlMigrationQueries()),
        wakeup=lambda: engine.wakeup(),
        runner_name=worker_id(),
        lease=timedelta(seconds=config.operation_lease_s),
        chunk=config.operation_chunk,
        threshold=config.operation_threshold,
        always=config.background_always,
        abandon_letter=engine.abandon,
    )
    dispatcher = Dispatcher(
        executor, platform.registrations.subjects, uow, clock, operations=operations.run
    )
    delivery = InProcessDelivery(
        uow,
        clock,
        dispatcher,
        recover=executor.recover_expired,
        stranded_after=config.stranded_after,
        sweeps=(operations.sweep,),
    )
    engine.wakeup = delivery.wakeup
    catalog = Catalog(uow_factory=uow, store=human_store, clock=clock, ids=ids, expressions=rules)
    inbox = Inbox(SqlInboxQuery(platform.database), clock)

    def unit_store(unit: UnitOfWork) -> SqlUnitRepo:
        assert isinstance(unit, SqlUnitOfWork)
        return SqlUnitRepo(unit.conn)

    units = UnitService(uow_factory=uow, store=unit_store, clock=clock)

    deadlines = DeadlineService(uow_factory=uow, store=deadline_store, clock=clock, legal=legal)
    documents = DocumentService(
        SqlDocumentRepo(platform.database, clock, ids, platform.audit),
        FilesystemBlobStore(config.documents_dir),
        clock,
    )
    return WorkflowService(
        platform=platform,
        rules=rules,
        engine=engine,
        executor=executor,
        delivery=delivery,
        tasks=tasks,
        inbox=inbox,
        catalog=catalog,
        deadlines=deadlines,
        legal=legal,
        documents=documents,
        units=units,
        config=config,
        uow_factory=uow,
        dispatcher=dispatcher,
        operations=operations,
    )
