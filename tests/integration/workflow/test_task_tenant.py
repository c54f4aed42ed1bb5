"""A task carries its case's tenant (``workflow_tasks.tenant``, issue #25 item 5), on SQLite
and PostgreSQL: the task of a case, of a call activity's child and of an embedded
sub-process's child is written with the tenant of the case they belong to, and the inbox scopes
by that column: another tenant's viewer never sees the task, a hidden case's task stays hidden
to whoever may not see the case."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.runtime.ports.access import AccessRecord, Viewer
from services.workflow.runtime.services.calls import child_id
from services.workflow.runtime.services.inbox import InboxQuery
from tests.fakes.boot import booted
from tests.integration.workflow.test_call_activity import CASE, CallPlugin
from tests.integration.workflow.test_subprocess import SubPlugin

OFFICER = Actor(id="officer")
CHILD_QUEUE = "call.child.operators"


@pytest.fixture
async def service(database_url: str, clock: FixedClock) -> AsyncIterator[WorkflowService]:
    async with booted(database_url, clock, call_test=CallPlugin(), sub_test=SubPlugin()) as wf:
        yield wf


async def _tenants(wf: WorkflowService, instance_id: str) -> tuple[str, list[str]]:
    """The case's tenant and its tasks'."""
    async with wf.engine._uow() as uow:
        case = await uow.instances.get(instance_id)
        assert case is not None
        return case.tenant, [task.tenant for task in await uow.tasks.of(instance_id)]


async def _called(wf: WorkflowService, tenant: str) -> str:
    """Start a parent with a call activity in ``tenant``; return its child's id."""
    view = await wf.engine.start(
        StartRequest(
            definition_key="call.parent",
            context={"amount": 21, "name": "Ana"},
            subject=CASE,
            actor=OFFICER,
            tenant=tenant,
        )
    )
    (token,) = await wf.engine.tokens(view.id)
    return child_id(view.id, token.id, "sub", token.attempt_group)


async def test_a_called_childs_task_carries_the_parents_tenant(service: WorkflowService) -> None:
    kid = await _called(service, "norte")
    assert await _tenants(service, kid) == ("norte", ["norte"])


async def test_a_sub_processs_task_carries_the_cases_tenant(service: WorkflowService) -> None:
    view = await service.engine.start(
        StartRequest(
            definition_key="sub.parent", context={"amount": 5}, actor=OFFICER, tenant="sul"
        )
    )
    (token,) = await service.engine.tokens(view.id)
    await service.delivery.drain()
    inner = child_id(view.id, token.id, "analysis", token.attempt_group)
    assert await _tenants(service, inner) == ("sul", ["sul"])


async def test_the_inbox_shows_a_task_to_its_tenant_only(service: WorkflowService) -> None:
    norte, sul = await _called(service, "norte"), await _called(service, "sul")

    async def seen(viewer: Viewer) -> list[str]:
        query = InboxQuery(queue=CHILD_QUEUE, seen_by=viewer)
        page = await service.inbox.page(query)
        assert (await service.inbox.count(query)).value == len(page.items)
        return [t.instance_id for t in page.items]

    assert await seen(Viewer(user_id="ana", tenant="norte")) == [norte]
    assert await seen(Viewer(user_id="ana", tenant="sul")) == [sul]
    assert sorted(await seen(Viewer(user_id="ana", tenant=None))) == sorted([norte, sul])


async def test_a_hidden_cases_task_stays_hidden_in_its_own_tenant(
    service: WorkflowService, clock: FixedClock
) -> None:
    kid = await _called(service, "norte")
    async with service.engine._uow() as uow:
        level = AccessRecord(
            instance_id=kid,
            level="secret",
            ground="lai.art23",
            changed_at=clock.now(),
            changed_by="classifier",
        )
        await uow.access.set_level(level)
        await uow.commit()
    for viewer in (
        Viewer(user_id="ana", tenant="norte"),
        Viewer(user_id="ana", tenant="norte", classifier=True),  # secret: only by a grant
        Viewer(user_id=None, tenant="norte"),
    ):
        page = await service.inbox.page(InboxQuery(queue=CHILD_QUEUE, seen_by=viewer))
        assert page.items == (), viewer
