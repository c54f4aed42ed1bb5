"""A city runs 1 to 4 e-SIC appeal instances (TRAMITA_ESIC_APPEAL_INSTANCES; the federal chain:
superior authority, head of the body, CGU, CMRI); the flow is built with that many."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from contracts.errors import ConfigurationError, Conflict
from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.settings import Settings
from modules.esic.config import APPEAL_INSTANCES_ENV, appeal_instances
from modules.esic.demo import ANALYST, AUTHORITY, MINISTER
from modules.esic.domain import APPEALS, APPEALS_ANSWERED, RequestStatus
from modules.esic.info_requests import Requests
from modules.esic.workflows import pedido
from services.workflow.bootstrap import WorkflowService
from tests.modules.with_engine.conftest import Inbox
from tests.modules.with_engine.test_esic_flow import received, status, work


@pytest.fixture
async def booted(
    database_url: str,
    clock: FixedClock,
    smtp: tuple[Inbox, int],
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> AsyncIterator[Platform]:
    monkeypatch.setenv(APPEAL_INSTANCES_ENV, str(request.param))
    settings = Settings(
        database_url=database_url, smtp_host="127.0.0.1", smtp_port=smtp[1], smtp_from="sic@x.br"
    )
    platform = await Platform.boot(settings, clock=clock, ids=SequentialIdGen(clock), upgrade=False)
    try:
        yield platform
    finally:
        await platform.close()


@pytest.mark.parametrize("booted", [4], indirect=True)
async def test_four_instances_run_the_whole_federal_chain_then_close(
    booted: Platform, service: WorkflowService
) -> None:
    rec = await received(booted, service)
    requests = Requests(booted)
    await work(service, rec, "analysis_saude", ANALYST, outcome="answer", data={"answer": "42"})
    deciders = [AUTHORITY, MINISTER, MINISTER, MINISTER]
    queues = []
    for k in range(1, 5):
        await requests.appeal(rec.id, text=f"recurso {k}")
        await service.delivery.drain()
        assert await status(booted, rec) == APPEALS[k - 1]
        assert rec.instance_id is not None
        (task,) = [t for t in await service.engine.tasks(rec.instance_id) if t.status == "ready"]
        queues.append((task.node_id, task.queue))
        await work(service, rec, f"appeal_{k}", deciders[k - 1], data={"appeal_answer": "x"})
        if k < 4:
            assert await status(booted, rec) == APPEALS_ANSWERED[k - 1]
    assert queues == [(f"appeal_{k}", f"esic.recurso{k}") for k in range(1, 5)]
    assert await status(booted, rec) == RequestStatus.CLOSED


@pytest.mark.parametrize("booted", [1], indirect=True)
async def test_one_instance_closes_after_the_first_decision_and_refuses_a_second_appeal(
    booted: Platform, service: WorkflowService
) -> None:
    rec = await received(booted, service)
    requests = Requests(booted)
    await work(service, rec, "analysis_saude", ANALYST, outcome="answer", data={"answer": "42"})
    await requests.appeal(rec.id, text="incompleto")
    await service.delivery.drain()
    assert await status(booted, rec) == RequestStatus.APPEAL_1
    await work(service, rec, "appeal_1", AUTHORITY, data={"appeal_answer": "x"})
    assert await status(booted, rec) == RequestStatus.CLOSED
    with pytest.raises(Conflict):
        await requests.appeal(rec.id, text="de novo")


def test_the_definition_has_as_many_appeal_decisions_as_configured() -> None:
    for instances in range(1, 5):
        nodes = {n["id"] for n in pedido(instances)["nodes"]}
        assert {f"appeal_{k}" for k in range(1, instances + 1)} <= nodes
        assert f"appeal_{instances + 1}" not in nodes


@pytest.mark.parametrize("raw", ["0", "5", "two", "-1"])
def test_a_number_outside_one_to_four_stops_the_boot(raw: str) -> None:
    with pytest.raises(ConfigurationError):
        appeal_instances({APPEAL_INSTANCES_ENV: raw})


def test_the_default_is_two_instances() -> None:
    assert appeal_instances({}) == 2
    assert appeal_instances({APPEAL_INSTANCES_ENV: " 3 "}) == 3
