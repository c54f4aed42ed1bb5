"""The runtime's services wired as ``bootstrap.build`` wires them, on the in-memory unit of
work (``memory_uow``) and a fixed clock: engine, executor, task service, catalog, deadlines,
units, long operations, and the in-process delivery that relays the outbox to the executor and
the operations' runner. No database, no platform."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from contracts.kernel import Actor
from contracts.workflow.handlers import WorkflowHandler
from core.clock import FixedClock
from core.ids import SequentialIdGen
from services.workflow.calendar import Calendar, CalendarSpec, seal_spec
from services.workflow.definition import KnownNames
from services.workflow.delivery.dispatch import Dispatcher
from services.workflow.delivery.inprocess import InProcessDelivery
from services.workflow.rules import RuleEngine
from services.workflow.runtime.ports import UnitOfWork
from services.workflow.runtime.ports.deadlines import DeadlineStore
from services.workflow.runtime.ports.human import HumanStore
from services.workflow.runtime.ports.operations import OperationStore
from services.workflow.runtime.ports.units import UnitStore
from services.workflow.runtime.services.applier import Applier
from services.workflow.runtime.services.deadline_service import DeadlineService
from services.workflow.runtime.services.engine import Engine
from services.workflow.runtime.services.executor import Executor
from services.workflow.runtime.services.human_policy import Catalog, TaskGuard
from services.workflow.runtime.services.human_tasks import TaskService
from services.workflow.runtime.services.legal_time import LegalTime
from services.workflow.runtime.services.migration import Migrator
from services.workflow.runtime.services.operations import OperationService
from services.workflow.runtime.services.publishing import ModelCompiler
from services.workflow.runtime.services.units import UnitService
from tests.fakes.memory_uow import MemoryDatabase, MemoryUnitOfWork
from tests.fakes.telemetry import NoTelemetry

START = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
BOOT = Actor.system("boot")


class Grants:
    """``contracts.kernel.Permissions``: what each person's profile grants."""

    def __init__(self, granted: Mapping[str, frozenset[str]]) -> None:
        self._granted = dict(granted)

    async def has(self, user_id: str, permission: str) -> bool:
        return permission in self._granted.get(user_id, frozenset())

    async def of(self, user_id: str) -> frozenset[str]:
        return self._granted.get(user_id, frozenset())


def human_of(uow: UnitOfWork) -> HumanStore:
    return uow.human


def deadlines_of(uow: UnitOfWork) -> DeadlineStore:
    return uow.deadlines


def units_of(uow: UnitOfWork) -> UnitStore:
    return uow.units


def operations_of(uow: UnitOfWork) -> OperationStore:
    return uow.operations


class MemoryKit:
    def __init__(
        self,
        *,
        handlers: Mapping[str, WorkflowHandler] | None = None,
        queues: Mapping[str, tuple[str, tuple[str, ...], str]] | None = None,
        forms: tuple[Mapping[str, Any], ...] = (),
        grants: Mapping[str, frozenset[str]] | None = None,
        pools: frozenset[str] = frozenset(),
    ) -> None:
        self.clock = FixedClock(START)
        self.ids = SequentialIdGen(self.clock)
        self.database = MemoryDatabase()
        self.queues = dict(queues or {})
        self.forms = forms
        handlers = dict(handlers or {})
        rules = RuleEngine()
        form_names = {str(f["key"]) for f in forms} | {f"{f['key']}@{f['version']}" for f in forms}
        known = KnownNames(
            handlers=frozenset(handlers),
            forms=frozenset(form_names),
            queues=frozenset(self.queues) | {"integration", "approval", "validation"},
            providers=frozenset(),
        )
        compiler = ModelCompiler(known, rules, rules)
        calendar = Calendar.from_spec(seal_spec(CalendarSpec(key="br-national", version=1)))
        legal = LegalTime(calendar, {}, store=deadlines_of)
        guard = TaskGuard(permissions=Grants(grants or {}), compiler=compiler, expressions=rules)

        async def pin_form(unit: UnitOfWork, reference: str) -> str:
            return await guard.pin(unit.human, reference)

        def task_service(engine: Engine) -> TaskService:
            return TaskService(
                uow_factory=self.uow,
                store=human_of,
                clock=self.clock,
                ids=self.ids,
                guard=guard,
                compiler=compiler,
                apply_in=engine.apply_in,
                wakeup=lambda: None,
            )

        self.engine = Engine(
            uow_factory=self.uow,
            clock=self.clock,
            ids=self.ids,
            compiler=compiler,
            applier=Applier(
                self.ids,
                calendar,
                legal,
                telemetry=NoTelemetry(),
                pin_form=pin_form,
                pools=pools,
            ),
            human=task_service,
            wakeup=lambda: None,
            zone=ZoneInfo("America/Sao_Paulo"),
            tick_concurrency=1,
        )
        assert self.engine.human is not None
        self.tasks: TaskService = self.engine.human
        self.executor = Executor(
            engine=self.engine,
            uow_factory=self.uow,
            clock=self.clock,
            handlers=handlers,
            providers={},
            worker_id="w1",
            telemetry=NoTelemetry(),
        )
        self.catalog = Catalog(
            uow_factory=self.uow, store=human_of, clock=self.clock, ids=self.ids, expressions=rules
        )
        self.deadlines = DeadlineService(
            uow_factory=self.uow, store=deadlines_of, clock=self.clock, legal=legal
        )
        self.units = UnitService(uow_factory=self.uow, store=units_of, clock=self.clock)
        self.operations = OperationService(
            uow_factory=self.uow,
            store=operations_of,
            clock=self.clock,
            ids=self.ids,
            tenant="default",
            tasks=self.tasks,
            migrator=Migrator(self.engine, self.uow),
            wakeup=lambda: None,
            runner_name="w1",
            abandon_letter=self.engine.abandon,
        )
        self.delivery = InProcessDelivery(
            self.uow,
            self.clock,
            Dispatcher(self.executor, {}, self.uow, self.clock, operations=self.operations.run),
            wake=asyncio.Event(),
            recover=self.executor.recover_expired,
            pools=pools,
        )

    def uow(self) -> MemoryUnitOfWork:
        return MemoryUnitOfWork(self.database, self.clock, self.ids)

    async def boot(self, *definitions: dict[str, Any]) -> None:
        """What the service does at start-up: queues, members and forms, then definitions."""
        await self.catalog.sync(self.queues, self.forms, actor=BOOT)
        for definition in definitions:
            await self.engine.publisher.publish(definition, actor=BOOT)
