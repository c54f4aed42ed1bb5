"""Ten authorised members claim the same task at once from real processes: one wins."""

from __future__ import annotations

import pytest

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from services.workflow.bootstrap import WorkflowService
from tests.fakes.purchase import order
from tests.integration.human.casework import enrol, uid
from tests.integration.workflow.test_concurrency import race

pytestmark = pytest.mark.slow


async def test_ten_members_claiming_at_once_leave_exactly_one_owner(
    wf: WorkflowService, database_url: str
) -> None:
    names = [f"manager-{i}" for i in range(10)]
    await enrol(wf, "purchase.managers", *names)
    view = await wf.engine.start(
        StartRequest(
            definition_key="purchase.approval", context=order(50_000), actor=Actor(id="author")
        )
    )
    await wf.delivery.drain()
    (task,) = await wf.engine.tasks(view.id)
    results = race(database_url, "claim", task.id, [uid(n) for n in names], processes=2)
    winners = [r["actor"] for r in results if r["ok"]]
    assert len(winners) == 1
    assert {r["problem"] for r in results if not r["ok"]} == {"conflict"}
    (claimed,) = await wf.engine.tasks(view.id)
    assert (claimed.status, claimed.assignee) == ("claimed", winners[0])
