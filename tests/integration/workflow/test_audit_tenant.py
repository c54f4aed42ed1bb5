"""The engine's audit entries about a case go to the case's tenant's chains (the unit of work
knows the tenant of every instance it read or wrote), on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import sqlalchemy as sa

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.audit import chained_log
from core.audit_verify import verify_chain
from core.clock import FixedClock
from core.db import create_engine
from services.workflow.bootstrap import WorkflowService
from services.workflow.runtime.services.calls import child_id
from tests.fakes.boot import booted
from tests.integration.workflow.test_call_activity import CASE, CallPlugin

OFFICER = Actor(id="officer")


@pytest.fixture
async def service(database_url: str, clock: FixedClock) -> AsyncIterator[WorkflowService]:
    async with booted(database_url, clock, call_test=CallPlugin()) as wf:
        yield wf


async def _start(wf: WorkflowService, tenant: str) -> tuple[str, str]:
    """A parent with a call activity in ``tenant``: its id and its child's."""
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
    return view.id, child_id(view.id, token.id, "sub", token.attempt_group)


async def test_a_cases_audit_entries_carry_its_tenant(
    service: WorkflowService, database_url: str
) -> None:
    cases = {tenant: await _start(service, tenant) for tenant in ("norte", "sul")}
    database = create_engine(database_url)
    try:
        async with database.connect() as conn:
            rows = list(await conn.execute(sa.select(chained_log).order_by(chained_log.c.seq)))
            report = await verify_chain(conn)
            north = await verify_chain(conn, tenant="norte")
    finally:
        await database.dispose()
    for tenant, ids in cases.items():
        about = [r for r in rows if r.object_id in ids]
        assert about and {r.tenant for r in about} == {tenant}, tenant
    assert report.ok and {"norte", "sul"} <= set(report.tenant_heads)
    assert north.ok and {h.tenant for h in north.chains} == {"norte"}
