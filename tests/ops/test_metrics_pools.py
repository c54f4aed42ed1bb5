"""``workflow_queue_depth`` with tenant pools (``TRAMITA_WF_TENANT_POOLS``): a pooled tenant's
queued steps are counted under the queue its own workers consume, ``Q@tenant``."""

from __future__ import annotations

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from services.workflow.bootstrap import WorkflowService
from services.workflow.persistence.ops_repo import ops_snapshot
from tests.fakes.purchase import order

WF = "purchase.approval"


async def _queue_depth(wf: WorkflowService, pools: frozenset[str]) -> dict[str, int]:
    async with wf.platform.database.connect() as conn:
        return (await ops_snapshot(conn, wf.platform.clock.now(), (), pools)).queue_depth


async def test_a_pooled_tenants_queued_steps_count_under_its_own_queue(
    wf: WorkflowService,
) -> None:
    for tenant in ("t1", "t2", "t2"):
        request = StartRequest(
            definition_key=WF, context=order(100), actor=Actor(id="author"), tenant=tenant
        )
        await wf.engine.start(request)  # not delivered: each first step stays scheduled
    assert await _queue_depth(wf, frozenset({"t1"})) == {"validation@t1": 1, "validation": 2}
    assert await _queue_depth(wf, frozenset()) == {"validation": 3}
