"""Protocol numbers per jurisdiction: the NUP or a city's pattern, drawn in the start's own
transaction — gap-free per series and year, also when starts race or one rolls back."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from contracts.errors import ConfigurationError, ValidationFailed
from contracts.workflow.types import StartRequest
from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.settings import Settings
from services.workflow.bootstrap import WorkflowService, service_of
from services.workflow.numbering import format_nup
from tests.integration.deadlines.esic import ESIC, OFFICER
from tests.integration.processes import race_results

ROOT = Path(__file__).parents[3]
OUVIDORIA = {**ESIC, "key": "ouvidoria.case", "protocol_prefix": "OUV"}


@pytest.fixture
async def booted(
    database_url: str, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[WorkflowService]:
    """A platform with the NUP of unit 00001 and two definitions published."""
    monkeypatch.setenv("TRAMITA_WF_PROTOCOL_FORMAT", "nup")
    monkeypatch.setenv("TRAMITA_WF_PROTOCOL_UNIT", "00001")
    platform = await Platform.boot(
        Settings(database_url=database_url), clock=clock, ids=SequentialIdGen(clock), upgrade=False
    )
    service = service_of(platform)
    for definition in (ESIC, OUVIDORIA):
        await service.engine.publisher.publish(definition, actor=OFFICER)
    yield service
    await platform.close()


async def _start(service: WorkflowService, key: str = "esic.request") -> str:
    view = await service.engine.start(StartRequest(definition_key=key, actor=OFFICER))
    return view.protocol


async def test_a_nup_deployment_numbers_every_definition_from_the_units_sequence(
    booted: WorkflowService,
) -> None:
    protocols = [
        await _start(booted),
        await _start(booted, "ouvidoria.case"),
        await _start(booted),
    ]
    assert protocols == [format_nup("00001", n, 2026) for n in (1, 2, 3)]
    assert protocols[0] == "00001.000001/2026-91"  # DV1: 46 mod 11 = 2, r = 9; DV2: 76, r = 1


async def test_a_rolled_back_start_gives_its_number_back(booted: WorkflowService) -> None:
    assert await _start(booted) == format_nup("00001", 1, 2026)
    with pytest.raises(ValidationFailed):  # refused after the number was drawn
        await booted.engine.start(
            StartRequest(definition_key="esic.request", context={"undeclared": 1}, actor=OFFICER)
        )
    assert await _start(booted) == format_nup("00001", 2, 2026)


async def test_a_city_pattern_numbers_its_cases(
    database_url: str, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAMITA_WF_PROTOCOL_FORMAT", "PMV-{prefix}/{seq:05d}/{year}")
    platform = await Platform.boot(
        Settings(database_url=database_url), clock=clock, ids=SequentialIdGen(clock), upgrade=False
    )
    try:
        service = service_of(platform)
        await service.engine.publisher.publish(ESIC, actor=OFFICER)
        assert [await _start(service), await _start(service)] == [
            "PMV-SIC/00001/2026",
            "PMV-SIC/00002/2026",
        ]
    finally:
        await platform.close()


async def test_a_bad_numbering_setting_stops_the_boot(
    database_url: str, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAMITA_WF_PROTOCOL_FORMAT", "nup")
    monkeypatch.setenv("TRAMITA_WF_PROTOCOL_UNIT", "1")
    with pytest.raises(ConfigurationError) as refused:
        await Platform.boot(
            Settings(database_url=database_url), clock=clock, ids=SequentialIdGen(clock)
        )
    assert refused.value.fields["setting"] == "protocol_unit"


def _race(database_url: str, processes: int, each: int) -> list[dict[str, object]]:
    """``processes`` real processes, each starting ``each`` instances at once on its own
    connections, all released together."""
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT),
        TRAMITA_LOG_JSON="1",
        TRAMITA_WF_PROTOCOL_FORMAT="nup",
        TRAMITA_WF_PROTOCOL_UNIT="00001",
    )
    command = [sys.executable, "-m", "tests.integration.workflow.race_start", database_url]
    procs = [
        subprocess.Popen(
            [*command, "esic.request" if i % 2 else "ouvidoria.case", str(each)],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(processes)
    ]
    return race_results(procs)


@pytest.mark.slow
async def test_twenty_racing_starts_in_four_processes_number_one_to_twenty(
    booted: WorkflowService, database_url: str
) -> None:
    results = _race(database_url, processes=4, each=5)
    assert [r for r in results if not r["ok"]] == []
    protocols = sorted(str(r["protocol"]) for r in results)
    assert protocols == [format_nup("00001", n, 2026) for n in range(1, 21)]
