"""The runtime's services on the in-memory unit of work (``tests/fakes/memory_uow``): the
engine starts an instance, the executor runs its step and the instance ends, without a
database; a worker that lost its lease changes nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from contracts.kernel import Actor
from contracts.workflow.handlers import StepControl
from contracts.workflow.types import StartRequest, StepInput, StepResult
from core.clock import FixedClock
from core.ids import UUIDv7Gen
from services.workflow.calendar import Calendar, CalendarSpec, seal_spec
from services.workflow.definition import KnownNames
from services.workflow.rules import RuleEngine
from services.workflow.runtime.ports import LeaseLost
from services.workflow.runtime.services.applier import Applier
from services.workflow.runtime.services.engine import Engine
from services.workflow.runtime.services.executor import Executor
from services.workflow.runtime.services.legal_time import LegalTime
from services.workflow.runtime.services.publishing import ModelCompiler
from tests.fakes.memory_uow import MemoryDatabase, MemoryUnitOfWork
from tests.fakes.telemetry import NoTelemetry

FLOW = {
    "format": 1,
    "key": "memory.double",
    "name": "Double it",
    "protocol_prefix": "MEM",
    "nodes": [
        {"id": "begin", "type": "start", "produces": ["n"], "next": "work"},
        {
            "id": "work",
            "type": "service_task",
            "handler": "memory.double",
            "consumes": ["n"],
            "produces": ["doubled"],
            "next": "end",
        },
        {"id": "end", "type": "end"},
    ],
}
AUTHOR = Actor(id="00000000-0000-7000-8000-00000000a001")


class Double:
    def __init__(self) -> None:
        self.calls = 0

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        self.calls += 1
        return StepResult(output={"doubled": int(step.data["n"]) * 2})


async def _pinned(uow: object, reference: str) -> str:
    return reference


class Kit:
    def __init__(self) -> None:
        self.clock = FixedClock(datetime(2026, 3, 2, 12, 0, tzinfo=UTC))
        self.ids = UUIDv7Gen()
        self.database = MemoryDatabase()
        rules = RuleEngine()
        known = KnownNames(
            handlers=frozenset({"memory.double"}),
            forms=frozenset(),
            queues=frozenset({"memory.double.operators"}),
            providers=frozenset(),
        )
        calendar = Calendar.from_spec(seal_spec(CalendarSpec(key="br-national", version=1)))
        self.engine = Engine(
            uow_factory=self.uow,
            clock=self.clock,
            ids=self.ids,
            compiler=ModelCompiler(known, rules, rules),
            applier=Applier(
                self.ids,
                calendar,
                LegalTime(calendar, {}),
                telemetry=NoTelemetry(),
                pin_form=_pinned,
            ),
            wakeup=lambda: None,
            zone=ZoneInfo("America/Sao_Paulo"),
            tick_concurrency=1,
        )
        self.handler = Double()
        self.executor = Executor(
            engine=self.engine,
            uow_factory=self.uow,
            clock=self.clock,
            handlers={"memory.double": self.handler},
            providers={},
            worker_id="w1",
            telemetry=NoTelemetry(),
        )

    def uow(self) -> MemoryUnitOfWork:
        return MemoryUnitOfWork(self.database, self.clock, self.ids)

    async def start(self, n: int) -> str:
        await self.engine.publisher.publish(FLOW, actor=AUTHOR)
        view = await self.engine.start(
            StartRequest(definition_key="memory.double", context={"n": n}, actor=AUTHOR)
        )
        return view.id


@pytest.fixture
def kit() -> Kit:
    return Kit()


async def test_an_instance_starts_runs_its_step_and_ends(kit: Kit) -> None:
    instance_id = await kit.start(21)
    (step,) = kit.database.steps.values()
    assert (step.node_id, step.status) == ("work", "scheduled")
    assert [m.key for m in kit.database.outbox] == [step.id]

    assert await kit.executor.run_step(step.id) == "succeeded"

    view = await kit.engine.status(instance_id)
    assert view.status == "completed"
    assert view.context["doubled"] == 42
    assert kit.handler.calls == 1
    assert kit.database.steps[step.id].status == "succeeded"
    stored, replayed = await kit.engine.replayed_state(instance_id)
    assert stored == replayed
    assert kit.database.audit[0].action == "workflow.version.published"


async def test_a_step_run_twice_runs_its_handler_once(kit: Kit) -> None:
    await kit.start(1)
    (step,) = kit.database.steps.values()
    assert await kit.executor.run_step(step.id) == "succeeded"
    assert await kit.executor.run_step(step.id) == "skipped"
    assert kit.handler.calls == 1


async def test_a_late_result_after_the_lease_was_taken_away_changes_nothing(kit: Kit) -> None:
    instance_id = await kit.start(3)
    (step,) = kit.database.steps.values()
    claimed = await kit.executor._claim(step.id)
    assert not isinstance(claimed, str)
    async with kit.uow() as uow:
        await uow.steps.update(step.id, status="failed", lease_owner="sweeper")
        await uow.commit()
    before = await kit.engine.status(instance_id)

    assert await kit.executor._run(*claimed, chain=False) == ("lease_lost", None)

    after = await kit.engine.status(instance_id)
    assert (after.row_version, after.context) == (before.row_version, before.context)
    assert (kit.database.steps[step.id].status, kit.database.steps[step.id].lease_owner) == (
        "failed",
        "sweeper",
    )


async def test_finishing_without_the_lease_raises_and_writes_nothing(kit: Kit) -> None:
    await kit.start(3)
    (step,) = kit.database.steps.values()
    with pytest.raises(LeaseLost):
        async with kit.uow() as uow:
            await uow.steps.finish(step.id, owner="nobody", status="succeeded")
    assert kit.database.steps[step.id].status == "scheduled"


async def test_work_not_committed_leaves_nothing(kit: Kit) -> None:
    await kit.start(5)
    commits = kit.database.commits
    async with kit.uow() as uow:
        await uow.outbox.enqueue("t", "k", {}, available_at=kit.clock.now() + timedelta(hours=1))
        await uow.rollback()
    async with kit.uow() as uow:
        assert await uow.outbox.next_due() is not None  # the start's step message
        assert len(await uow.outbox.due(kit.clock.now() + timedelta(days=1), 10)) == 1
    assert kit.database.commits == commits
