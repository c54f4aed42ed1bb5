"""The runtime's services on the in-memory unit of work (``tests/fakes/memory_kit``) and a
fixed clock: a gateway routes, people claim and complete tasks (authorised, separated,
idempotent), timers fire when due, a step over its retry ceiling becomes a dead letter that an
operator reprocesses or abandons, a legal deadline moves its timer and the task's SLA, a
supervisor oversees the queues of their units, long operations run item by item. No database:
these run in milliseconds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from contracts.errors import Forbidden, InvalidTransition, NotFound, RetryableFailure
from contracts.kernel import Actor
from contracts.workflow.handlers import StepControl
from contracts.workflow.types import StartRequest, StepInput, StepResult
from services.workflow.calendar import (
    ESIC_REQUEST,
    AnnualHoliday,
    CalendarSpec,
    ExtensionRefused,
    seal_spec,
)
from services.workflow.forms import decode_snapshot
from services.workflow.runtime.services.units import Scope
from tests.fakes.memory_kit import MemoryKit

AUTHOR = Actor(id="00000000-0000-7000-8000-00000000a001")
ANA = Actor(id="00000000-0000-7000-8000-00000000a002")
BIA = Actor(id="00000000-0000-7000-8000-00000000a003")
REVIEW = "kit.review"
NOTE_FORM = {
    "format": 1,
    "key": "kit.note",
    "version": 1,
    "title": "Parecer",
    "fields": [{"id": "note", "type": "long_text", "label": "Parecer", "required": True}],
}


class Marker:
    """Answers with the node it ran on; fails while ``failures`` lasts."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, str]] = []
        self.failures = 0

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        self.calls.append((step.node_id, step.attempt, step.idempotency_key))
        if self.failures:
            self.failures -= 1
            raise RetryableFailure("partner answered 503", status=503)
        return StepResult(output={"path": step.node_id})


def _service(node_id: str, nxt: str, **failure: Any) -> dict[str, Any]:
    return {
        "id": node_id,
        "type": "service_task",
        "handler": "kit.mark",
        "consumes": ["n"],
        "produces": ["path"],
        "failure": {"pending_queue": "kit.operators", **failure},
        "next": nxt,
    }


ROUTED = {
    "format": 1,
    "key": "kit.routed",
    "name": "Routed",
    "protocol_prefix": "ROU",
    "nodes": [
        {"id": "begin", "type": "start", "produces": ["n"], "next": "route"},
        {
            "id": "route",
            "type": "exclusive",
            "consumes": ["n"],
            "branches": [{"when": "n > 10", "next": "big"}],
            "default": "small",
        },
        _service("big", "end"),
        _service("small", "end"),
        {"id": "end", "type": "end"},
    ],
}
REVIEWED = {
    "format": 1,
    "key": "kit.reviewed",
    "name": "Reviewed",
    "protocol_prefix": "REV",
    "nodes": [
        {"id": "begin", "type": "start", "produces": ["n"], "next": "review"},
        {
            "id": "review",
            "type": "approval",
            "name": "Dar o parecer",
            "queue": "kit.reviewers",
            "form": "kit.note",
            "consumes": ["n"],
            "produces": ["note"],
            "policy": {"exclude_author": True},
            "timers": [{"id": "expire", "duration": "PT48H", "next": "expired"}],
            "outcomes": {"approve": "approved", "reject": "rejected"},
        },
        {"id": "approved", "type": "end", "result": "completed"},
        {"id": "rejected", "type": "end", "result": "rejected"},
        {"id": "expired", "type": "end", "result": "expired"},
    ],
}
WAITING = {
    "format": 1,
    "key": "kit.waiting",
    "name": "Waiting",
    "protocol_prefix": "WAI",
    "nodes": [
        {"id": "begin", "type": "start", "produces": ["n"], "next": "wait"},
        {"id": "wait", "type": "timer", "duration": "PT1H", "next": "after"},
        _service("after", "end"),
        {"id": "end", "type": "end"},
    ],
}
FLAKY = {
    "format": 1,
    "key": "kit.flaky",
    "name": "Flaky",
    "protocol_prefix": "FLA",
    "nodes": [
        {"id": "begin", "type": "start", "produces": ["n"], "next": "call"},
        _service("call", "end", max_attempts=2, backoff_base_s=1, jitter=False),
        {"id": "end", "type": "end"},
    ],
}


@pytest.fixture
def marker() -> Marker:
    return Marker()


@pytest.fixture
async def kit(marker: Marker) -> MemoryKit:
    kit = MemoryKit(
        handlers={"kit.mark": marker},
        queues={
            "kit.reviewers": ("Pareceristas", (ANA.id,), REVIEW),
            "kit.operators": ("Operadores", (), "workflow.tasks"),
        },
        forms=(NOTE_FORM,),
        grants={
            ANA.id: frozenset({REVIEW}),
            BIA.id: frozenset({REVIEW}),
            AUTHOR.id: frozenset({REVIEW}),
        },
    )
    await kit.boot(ROUTED, REVIEWED, WAITING, FLAKY)
    return kit


async def _start(kit: MemoryKit, key: str, n: int, actor: Actor = AUTHOR) -> str:
    view = await kit.engine.start(StartRequest(definition_key=key, context={"n": n}, actor=actor))
    return view.id


async def _task(kit: MemoryKit, instance_id: str) -> str:
    async with kit.uow() as uow:
        (task,) = [t for t in await uow.tasks.of(instance_id) if t.status in ("ready", "claimed")]
    return task.id


# --- the engine and a gateway -------------------------------------------------------------------


async def test_the_gateway_takes_the_branch_whose_condition_holds(kit: MemoryKit) -> None:
    big, small = await _start(kit, "kit.routed", 20), await _start(kit, "kit.routed", 3)
    await kit.delivery.drain()
    for instance_id, path in ((big, "big"), (small, "small")):
        view = await kit.engine.status(instance_id)
        assert (view.status, view.context["path"]) == ("completed", path)
        stored, replayed = await kit.engine.replayed_state(instance_id)
        assert stored == replayed


# --- human tasks --------------------------------------------------------------------------------


async def test_a_member_claims_and_completes_and_the_instance_moves_on(kit: MemoryKit) -> None:
    instance_id = await _start(kit, "kit.reviewed", 1)
    task_id = await _task(kit, instance_id)
    claimed = await kit.tasks.claim(task_id, actor=ANA)
    assert (claimed.status, claimed.assignee) == ("claimed", ANA.id)

    done = await kit.tasks.complete(task_id, actor=ANA, outcome="approve", data={"note": "ok"})

    assert done.status == "completed"
    view = await kit.engine.status(instance_id)
    assert (view.status, view.context["note"]) == ("completed", "ok")
    assert kit.database.tasks[task_id].form == "kit.note@1"  # pinned when the task opened
    async with kit.uow() as uow:
        (stored,) = await uow.human.submissions(task_id)
    snapshot = decode_snapshot(stored)
    assert (snapshot.form_ref, snapshot.actor_id, snapshot.as_dict()) == (
        "kit.note@1",
        ANA.id,
        {"note": "ok"},
    )


async def test_claiming_needs_membership_and_the_author_never_holds_the_task(
    kit: MemoryKit,
) -> None:
    task_id = await _task(kit, await _start(kit, "kit.reviewed", 1))
    with pytest.raises(Forbidden) as outsider:
        await kit.tasks.claim(task_id, actor=BIA)
    assert outsider.value.fields["code"] == "not_a_member"
    await kit.catalog.add_member("kit.reviewers", AUTHOR.id, actor=Actor.system("t"), reason="r")
    with pytest.raises(Forbidden) as author:
        await kit.tasks.claim(task_id, actor=AUTHOR)
    assert author.value.fields["rule"] == "exclude_author"
    assert kit.database.tasks[task_id].status == "ready"


async def test_a_repeated_completion_with_its_key_answers_the_same_and_acts_once(
    kit: MemoryKit,
) -> None:
    instance_id = await _start(kit, "kit.reviewed", 1)
    task_id = await _task(kit, instance_id)
    await kit.tasks.claim(task_id, actor=ANA)
    first = await kit.tasks.complete(
        task_id, actor=ANA, outcome="reject", data={"note": "no"}, idempotency_key="k1"
    )
    row_version = (await kit.engine.status(instance_id)).row_version

    again = await kit.tasks.complete(
        task_id, actor=ANA, outcome="reject", data={"note": "no"}, idempotency_key="k1"
    )

    assert again == first
    assert (await kit.engine.status(instance_id)).row_version == row_version
    async with kit.uow() as uow:
        assert len(await uow.human.submissions(task_id)) == 1


# --- timers -------------------------------------------------------------------------------------


async def test_a_timer_fires_when_due_and_not_before(kit: MemoryKit) -> None:
    instance_id = await _start(kit, "kit.waiting", 1)
    kit.clock.advance(timedelta(minutes=59))
    assert await kit.engine.tick() == 0
    kit.clock.advance(timedelta(minutes=1))
    assert await kit.engine.tick() == 1
    await kit.delivery.drain()
    view = await kit.engine.status(instance_id)
    assert (view.status, view.context["path"]) == ("completed", "after")
    assert await kit.engine.tick() == 0


async def test_an_interrupting_boundary_timer_closes_the_task_and_ends_the_case(
    kit: MemoryKit,
) -> None:
    instance_id = await _start(kit, "kit.reviewed", 1)
    task_id = await _task(kit, instance_id)
    kit.clock.advance(timedelta(hours=48))
    assert await kit.engine.tick() == 1
    view = await kit.engine.status(instance_id)
    assert (view.status, view.current_nodes) == ("expired", ())
    assert kit.database.tasks[task_id].status == "cancelled"
    with pytest.raises(InvalidTransition):
        await kit.tasks.claim(task_id, actor=ANA)


# --- retries and dead letters -------------------------------------------------------------------


async def _dead_lettered(kit: MemoryKit, marker: Marker) -> tuple[str, str]:
    marker.failures = 2
    instance_id = await _start(kit, "kit.flaky", 1)
    await kit.delivery.drain()  # attempt 1 fails; attempt 2 waits its backoff
    assert [c[1] for c in marker.calls] == [1]
    kit.clock.advance(timedelta(seconds=2))
    await kit.delivery.drain()  # attempt 2 fails: over the ceiling
    async with kit.uow() as uow:
        (letter,) = await uow.dead_letters.all()
    assert (letter["instance_id"], letter["node_id"]) == (instance_id, "call")
    return instance_id, str(letter["id"])


async def test_over_the_retry_ceiling_a_reprocessed_step_runs_again_with_the_same_key(
    kit: MemoryKit, marker: Marker
) -> None:
    instance_id, letter_id = await _dead_lettered(kit, marker)
    assert (await kit.engine.status(instance_id)).status == "stalled"

    await kit.engine.reprocess(letter_id, actor=ANA)
    await kit.delivery.drain()

    view = await kit.engine.status(instance_id)
    assert (view.status, view.context["path"]) == ("completed", "call")
    assert [c[1] for c in marker.calls] == [1, 2, 3]
    assert len({c[2] for c in marker.calls}) == 1
    assert kit.database.dead_letters[letter_id]["status"] == "reprocessed"
    with pytest.raises(InvalidTransition):
        await kit.engine.reprocess(letter_id, actor=ANA)


async def test_an_abandoned_dead_letter_fails_the_instance(kit: MemoryKit, marker: Marker) -> None:
    instance_id, letter_id = await _dead_lettered(kit, marker)

    await kit.engine.abandon(letter_id, actor=ANA, reason="the partner is gone")

    assert (await kit.engine.status(instance_id)).status == "failed"
    assert kit.database.dead_letters[letter_id]["status"] == "abandoned"
    with pytest.raises(InvalidTransition):
        await kit.engine.abandon(letter_id, actor=ANA, reason="again")


# --- legal deadlines ----------------------------------------------------------------------------

VITORIA = seal_spec(
    CalendarSpec(
        key="br-es-vitoria",
        version=1,
        subdivision="ES",
        municipal_holidays=(AnnualHoliday(name="Aniversario de Vitoria", month=9, day=8),),
        facultative=("Carnival",),
    )
)
ANSWERED = {
    "format": 1,
    "key": "kit.answered",
    "name": "Answered",
    "protocol_prefix": "ANS",
    "nodes": [
        {"id": "receive", "type": "start", "produces": ["n"], "next": "answer"},
        {
            "id": "answer",
            "name": "Responder",
            "type": "user_task",
            "queue": "approval",
            "timers": [{"id": "prazo", "duration": "P90D", "next": "late"}],
            "next": "done",
        },
        {"id": "done", "type": "end"},
        {"id": "late", "type": "end", "result": "expired"},
    ],
}


def _end_of(year: int, month: int, day: int) -> datetime:
    """23:59:59 in Brasília: when a deadline ending that day ends."""
    return datetime(year, month, day, 23, 59, 59, tzinfo=ZoneInfo("America/Sao_Paulo"))


async def _counting(kit: MemoryKit) -> str:
    """A request received on Monday 1 March 2027 (Vitória): due Monday 22 March."""
    await kit.engine.publisher.publish(ANSWERED, actor=AUTHOR)
    await kit.deadlines.publish_calendar(VITORIA, AUTHOR)
    kit.clock.set(datetime(2027, 3, 1, 13, tzinfo=UTC))
    instance_id = await _start(kit, "kit.answered", 1)
    await kit.deadlines.start(instance_id, "prazo", ESIC_REQUEST, "br-es-vitoria", AUTHOR)
    return instance_id


async def test_a_legal_deadline_moves_the_bound_timer_and_the_task_sla(kit: MemoryKit) -> None:
    instance_id = await _counting(kit)
    (view,) = await kit.deadlines.show(instance_id, "prazo")
    assert view.due_at == _end_of(2027, 3, 22)
    async with kit.uow() as uow:
        timer = await uow.deadlines.bound_timer(instance_id, "prazo")
        (task,) = await uow.tasks.of(instance_id)
    assert timer is not None and timer.due_at == _end_of(2027, 3, 22)
    assert task.due_at == _end_of(2027, 3, 22)

    kit.clock.set(datetime(2027, 3, 10, 13, tzinfo=UTC))
    extended = await kit.deadlines.extend(instance_id, "prazo", "three departments", AUTHOR)

    assert (extended.due_at, extended.extensions_used) == (_end_of(2027, 3, 31), 1)
    assert kit.database.tasks[task.id].due_at == _end_of(2027, 3, 31)
    with pytest.raises(ExtensionRefused):
        await kit.deadlines.extend(instance_id, "prazo", "again", AUTHOR)


async def test_the_case_expires_when_its_legal_deadline_passes(kit: MemoryKit) -> None:
    instance_id = await _counting(kit)
    kit.clock.set(_end_of(2027, 3, 22) - timedelta(seconds=1))
    assert await kit.engine.tick() == 0
    kit.clock.advance(timedelta(seconds=1))
    assert await kit.engine.tick() == 1
    assert (await kit.engine.status(instance_id)).status == "expired"


# --- organisational units -----------------------------------------------------------------------


async def test_a_supervisor_oversees_the_queues_of_their_units_only(kit: MemoryKit) -> None:
    admin = Actor.system("t")
    assert await kit.units.add("saude", "Secretaria de Saúde", actor=admin, reason="r")
    assert not await kit.units.add("saude", "Secretaria de Saúde", actor=admin, reason="r")
    assert await kit.units.add_queue("saude", "kit.reviewers", actor=admin, reason="r")
    assert await kit.units.add("obras", "Secretaria de Obras", actor=admin, reason="r")
    assert await kit.units.add_queue("obras", "kit.operators", actor=admin, reason="r")
    assert await kit.units.add_supervisor("saude", BIA.id, actor=admin, reason="r")

    scope = await kit.units.scope(BIA.id, admin=False, supervise=True)

    assert scope.queues() == frozenset({"kit.reviewers"})
    with pytest.raises(NotFound):
        scope.queues("obras")
    assert await kit.units.scope(ANA.id, admin=False, supervise=True) == Scope(admin=False)
    assert (await kit.units.scope(ANA.id, admin=True, supervise=False)).queues() is None
    assert [e.action for e in kit.database.audit if e.object_type == "workflow_unit"] == [
        "workflow.unit.created",
        "workflow.unit.queue_assigned",
        "workflow.unit.created",
        "workflow.unit.queue_assigned",
        "workflow.unit.supervisor_added",
    ]


# --- long operations ----------------------------------------------------------------------------

MISSING = "00000000-0000-7000-8000-000000000000"


async def test_a_bulk_claim_operation_counts_each_task_and_keeps_going_past_refusals(
    kit: MemoryKit,
) -> None:
    free = [await _task(kit, await _start(kit, "kit.reviewed", i)) for i in range(2)]
    started = await kit.operations.start("bulk_claim", [free[0], MISSING, free[1]], actor=ANA)
    again = await kit.operations.start("bulk_claim", [free[0], MISSING, free[1]], actor=ANA)
    assert again.id == started.id  # the same selection while it runs: the same operation

    await kit.delivery.drain()

    over = await kit.operations.get(started.id)
    assert (over.status, over.total, over.done, over.refused) == ("finished", 3, 2, 1)
    refused = await kit.operations.items(started.id, refused_only=True)
    assert [(i.item_id, i.code) for i in refused] == [(MISSING, "unknown_task")]
    assert [kit.database.tasks[t].assignee for t in free] == [ANA.id, ANA.id]


async def test_giving_up_dead_letters_in_the_background_fails_their_instances(
    kit: MemoryKit, marker: Marker
) -> None:
    instance_id, letter_id = await _dead_lettered(kit, marker)
    started = await kit.operations.start(
        "dead_letter_abandon", [letter_id, letter_id], actor=ANA, reason="partner gone"
    )
    await kit.delivery.drain()
    over = await kit.operations.get(started.id)
    assert (over.status, over.total, over.done) == ("finished", 1, 1)
    assert (await kit.engine.status(instance_id)).status == "failed"
