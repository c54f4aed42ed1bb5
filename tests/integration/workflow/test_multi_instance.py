"""Multi-instance user tasks in the engine, on SQLite and PostgreSQL (issue #24 item 3): one
review task per reviewer in the case, all at once or one after another; a quorum closes the
task left open in the same transaction; the outputs reach the context in reviewer order; the
node's state lives in the instance's row, so a restart between two reviews changes nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest

from contracts.errors import Conflict
from contracts.hookspecs import hookimpl
from contracts.kernel import Actor
from contracts.workflow.handlers import StepControl
from contracts.workflow.types import StartRequest, StepInput, StepResult, TaskMulti
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.runtime.kernel.migration_plan import MigrationRequest
from services.workflow.runtime.services.migration import Migrator
from tests.fakes.boot import booted
from tests.integration.human.casework import enrol, uid

QUEUE = "review.board"
PEOPLE = ("ana", "bia", "caio")
QUORUM = 'results.filter(r, r.vote == "approve").size() >= 2'


def flow(key: str, mode: str = "parallel", complete_when: str | None = None) -> dict[str, Any]:
    multi = {"over": "reviewers", "item": "reviewer", "mode": mode}
    return {
        "format": 1,
        "key": key,
        "name": "Pareceres",
        "protocol_prefix": "PAR",
        "nodes": [
            {"id": "begin", "type": "start", "produces": ["reviewers"], "next": "review"},
            {
                "id": "review",
                "name": "Parecer",
                "type": "user_task",
                "queue": QUEUE,
                "produces": ["vote"],
                "multi": {**multi, **({"complete_when": complete_when} if complete_when else {})},
                "next": "record",
            },
            {
                "id": "record",
                "type": "service_task",
                "handler": "review.record",
                "failure": {"pending_queue": QUEUE},
                "next": "done",
            },
            {"id": "done", "type": "end"},
        ],
    }


class ReviewPlugin:
    def __init__(self) -> None:
        self.recorded: list[Any] = []

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        self.recorded.append(step.node_id)
        return StepResult(output={})

    @hookimpl
    def tramita_register_queues(self, registry: Any) -> None:
        registry.add(QUEUE, "Comissão")

    @hookimpl
    def tramita_register_handlers(self, registry: Any) -> None:
        registry.add("review.record", self)

    @hookimpl
    def tramita_register_workflows(self, registry: Any) -> None:
        registry.add(flow("review.all"))
        registry.add(flow("review.quorum", complete_when=QUORUM))
        registry.add(flow("review.sequence", mode="sequential"))


@pytest.fixture
def plugin() -> ReviewPlugin:
    return ReviewPlugin()


@pytest.fixture
async def service(
    database_url: str, clock: FixedClock, plugin: ReviewPlugin
) -> AsyncIterator[WorkflowService]:
    async with booted(database_url, clock, review_test=plugin) as service:
        await enrol(service, QUEUE, *PEOPLE)
        yield service


async def _start(service: WorkflowService, key: str, reviewers: list[str]) -> str:
    view = await service.engine.start(
        StartRequest(definition_key=key, context={"reviewers": reviewers}, actor=Actor(id="u"))
    )
    await service.delivery.drain()
    return view.id


async def _open(service: WorkflowService, instance_id: str) -> dict[str, str]:
    """The open review tasks by the reviewer each was opened for (its data)."""
    async with service.uow_factory() as uow:
        rows = await uow.tasks.of(instance_id)
    return {(r.data or {})["reviewer"]: r.id for r in rows if r.status in ("ready", "claimed")}


async def _review(service: WorkflowService, task_id: str, who: str, vote: str) -> None:
    await service.engine.complete(task_id, actor=Actor(id=uid(who)), data={"vote": vote})
    await service.delivery.drain()


async def test_parallel_reviews_all_complete_across_a_restart(
    database_url: str, clock: FixedClock, plugin: ReviewPlugin
) -> None:
    async with booted(database_url, clock, review_test=plugin) as first:
        await enrol(first, QUEUE, *PEOPLE)
        instance_id = await _start(first, "review.all", list(PEOPLE))
        tasks = await _open(first, instance_id)
        assert sorted(tasks) == sorted(PEOPLE)
        await _review(first, tasks["caio"], "caio", "reject")
    clock.advance(timedelta(minutes=5))  # the second boot's sequential ids start later
    async with booted(database_url, clock, review_test=plugin) as second:
        assert sorted(await _open(second, instance_id)) == ["ana", "bia"]
        await _review(second, tasks["ana"], "ana", "approve")
        assert (await second.engine.status(instance_id)).status == "waiting"
        await _review(second, tasks["bia"], "bia", "approve")
        view = await second.engine.status(instance_id)
        assert view.status == "completed" and plugin.recorded == ["record"]
        assert view.context["review_results"] == [
            {"vote": "approve"},
            {"vote": "approve"},
            {"vote": "reject"},
        ]
        stored, rebuilt = await second.engine.replayed_state(instance_id)
        assert stored == rebuilt


async def test_a_quorum_of_two_approvals_closes_the_third_review(
    service: WorkflowService, plugin: ReviewPlugin
) -> None:
    instance_id = await _start(service, "review.quorum", list(PEOPLE))
    tasks = await _open(service, instance_id)
    await _review(service, tasks["ana"], "ana", "approve")
    await _review(service, tasks["caio"], "caio", "approve")
    view = await service.engine.status(instance_id)
    assert view.status == "completed" and plugin.recorded == ["record"]
    assert view.context["review_results"] == [{"vote": "approve"}, None, {"vote": "approve"}]
    closed = {t.id: t.status for t in await service.engine.tasks(instance_id)}
    assert closed[tasks["bia"]] == "cancelled"
    async with service.uow_factory() as uow:
        (row,) = [r for r in await uow.tasks.of(instance_id) if r.id == tasks["bia"]]
    assert row.outcome == "closed:completion_condition"


async def test_sequential_reviews_open_one_after_another_in_order(
    service: WorkflowService, plugin: ReviewPlugin
) -> None:
    instance_id = await _start(service, "review.sequence", ["bia", "ana"])
    first = await _open(service, instance_id)
    assert list(first) == ["bia"]
    await _review(service, first["bia"], "bia", "reject")
    second = await _open(service, instance_id)
    assert list(second) == ["ana"]
    await _review(service, second["ana"], "ana", "approve")
    view = await service.engine.status(instance_id)
    assert view.status == "completed"
    assert view.context["review_results"] == [{"vote": "reject"}, {"vote": "approve"}]


async def test_no_reviewers_complete_the_step_at_once(
    service: WorkflowService, plugin: ReviewPlugin
) -> None:
    instance_id = await _start(service, "review.all", [])
    view = await service.engine.status(instance_id)
    assert view.status == "completed" and view.context["review_results"] == []
    assert await service.engine.tasks(instance_id) == [] and plugin.recorded == ["record"]


async def test_a_case_in_the_middle_of_its_reviews_is_not_migrated(
    service: WorkflowService,
) -> None:
    instance_id = await _start(service, "review.all", list(PEOPLE))
    renamed = flow("review.all")
    renamed["nodes"][1]["name"] = "Parecer da comissão"
    await service.engine.publisher.publish(renamed, actor=Actor(id="designer"))
    request = MigrationRequest(
        definition_key="review.all", from_version=1, to_version=2, instance_ids=(instance_id,)
    )
    report = await Migrator(service.engine, service.uow_factory).migrate(
        request, actor=Actor(id="designer")
    )
    (blocked,) = report.instances
    (why,) = blocked.blockers
    assert blocked.result == "blocked"
    assert (why.code, why.node_id) == ("multi_instance_waiting", "review")
    assert len(await _open(service, instance_id)) == 3


async def test_one_person_may_not_hold_a_second_review_of_the_step(
    service: WorkflowService,
) -> None:
    instance_id = await _start(service, "review.all", list(PEOPLE))
    tasks = await _open(service, instance_id)
    await _review(service, tasks["ana"], "ana", "approve")
    await service.engine.claim(tasks["caio"], actor=Actor(id=uid("bia")))
    for who, task in (("ana", "bia"), ("bia", "bia")):  # completed one / holds one already
        with pytest.raises(Conflict) as info:
            await service.engine.claim(tasks[task], actor=Actor(id=uid(who)))
        assert info.value.fields["code"] == "distinct_people", who
    views = {t.id: t for t in await service.engine.tasks(instance_id)}
    assert views[tasks["bia"]].status == "ready"
    assert views[tasks["ana"]].multi == TaskMulti(item="reviewer", value="ana", index=0, total=3)
