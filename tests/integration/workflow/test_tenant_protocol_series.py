"""Numbering per tenant (issue #25 item 1) on both backends: a tenant listed in
``TRAMITA_WF_TENANT_PROTOCOL_UNITS`` numbers its cases in its own series with its own unit; a
tenant not listed shares the deployment's series and unit; racing starts in one tenant still
get distinct consecutive numbers."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from contracts.workflow.types import StartRequest
from core.app import Platform
from core.clock import FixedClock
from core.db import sync_url
from core.ids import SequentialIdGen
from core.settings import Settings
from services.workflow.bootstrap import WorkflowService, service_of
from services.workflow.numbering import format_nup
from services.workflow.persistence import tables as t
from tests.integration.deadlines.esic import ESIC, OFFICER
from tests.integration.processes import race_results

ROOT = Path(__file__).parents[3]
OUVIDORIA = {**ESIC, "key": "ouvidoria.case", "protocol_prefix": "OUV"}
UNITS = "cidade-a=12345,cidade-b=67890"


@pytest.fixture
async def booted(
    database_url: str, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[WorkflowService]:
    """The NUP of unit 00001 for the deployment, cidade-a and cidade-b with units of their own."""
    monkeypatch.setenv("TRAMITA_WF_PROTOCOL_FORMAT", "nup")
    monkeypatch.setenv("TRAMITA_WF_PROTOCOL_UNIT", "00001")
    monkeypatch.setenv("TRAMITA_WF_TENANT_PROTOCOL_UNITS", UNITS)
    platform = await Platform.boot(
        Settings(database_url=database_url), clock=clock, ids=SequentialIdGen(clock), upgrade=False
    )
    service = service_of(platform)
    for definition in (ESIC, OUVIDORIA):
        await service.engine.publisher.publish(definition, actor=OFFICER)
    yield service
    await platform.close()


async def _start(service: WorkflowService, tenant: str | None, key: str = "esic.request") -> str:
    request = StartRequest(definition_key=key, actor=OFFICER, tenant=tenant)
    return (await service.engine.start(request)).protocol


async def test_each_tenant_with_its_own_unit_numbers_in_its_own_series(
    booted: WorkflowService, database_url: str
) -> None:
    protocols = [
        await _start(booted, "cidade-a"),
        await _start(booted, "cidade-b", "ouvidoria.case"),
        await _start(booted, "cidade-a", "ouvidoria.case"),
        await _start(booted, None),
        await _start(booted, "norte"),  # not listed: the deployment's series and unit
        await _start(booted, "cidade-b"),
        await _start(booted, "default"),
    ]
    assert protocols == [
        format_nup("12345", 1, 2026),
        format_nup("67890", 1, 2026),
        format_nup("12345", 2, 2026),
        format_nup("00001", 1, 2026),
        format_nup("00001", 2, 2026),
        format_nup("67890", 2, 2026),
        format_nup("00001", 3, 2026),
    ]
    engine = sa.create_engine(sync_url(database_url))
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.select(t.protocol_counters)).all()
    finally:
        engine.dispose()
    assert sorted((r.tenant, r.prefix, r.year, r.last) for r in rows) == [
        ("cidade-a", "12345", 2026, 2),
        ("cidade-b", "67890", 2026, 2),
        ("default", "00001", 2026, 3),
    ]


async def test_a_tenants_typed_nup_is_found_by_its_protocol(booted: WorkflowService) -> None:
    protocol = await _start(booted, "cidade-a")
    typed = protocol.replace(".", "").replace("/", "").replace("-", "")
    assert booted.engine.numbering.lookup(typed) == protocol


async def test_without_tenant_units_every_tenant_shares_the_deployments_series(
    database_url: str, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TRAMITA_WF_TENANT_PROTOCOL_UNITS", raising=False)
    monkeypatch.delenv("TRAMITA_WF_PROTOCOL_FORMAT", raising=False)
    platform = await Platform.boot(
        Settings(database_url=database_url), clock=clock, ids=SequentialIdGen(clock), upgrade=False
    )
    try:
        service = service_of(platform)
        await service.engine.publisher.publish(ESIC, actor=OFFICER)
        assert [await _start(service, "cidade-a"), await _start(service, None)] == [
            "SIC-2026-000001",
            "SIC-2026-000002",
        ]
    finally:
        await platform.close()


def _race(database_url: str, tenants: list[str], each: int) -> list[dict[str, object]]:
    """One real process per tenant in ``tenants``, each starting ``each`` cases of that tenant
    at once on its own connections, all released together."""
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT),
        TRAMITA_LOG_JSON="1",
        TRAMITA_WF_PROTOCOL_FORMAT="nup",
        TRAMITA_WF_PROTOCOL_UNIT="00001",
        TRAMITA_WF_TENANT_PROTOCOL_UNITS=UNITS,
    )
    command = [sys.executable, "-m", "tests.integration.workflow.race_start", database_url]
    procs = [
        subprocess.Popen(
            [*command, "esic.request" if i % 2 else "ouvidoria.case", str(each), tenant],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i, tenant in enumerate(tenants)
    ]
    return race_results(procs)


@pytest.mark.slow
async def test_racing_starts_in_two_tenants_number_each_series_one_to_ten(
    booted: WorkflowService, database_url: str
) -> None:
    results = _race(database_url, ["cidade-a", "norte", "cidade-a", "norte"], each=5)
    assert [r for r in results if not r["ok"]] == []
    protocols = sorted(str(r["protocol"]) for r in results)
    assert protocols == sorted(
        format_nup(unit, n, 2026) for unit in ("12345", "00001") for n in range(1, 11)
    )
