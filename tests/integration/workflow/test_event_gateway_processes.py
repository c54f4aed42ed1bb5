"""Real processes racing on event gateways (issue #24 item 3): one process fires the due
timers while another delivers the applicant's message to the same instances at the same moment;
every instance takes exactly one branch, the other wait cancelled with it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from tests.fakes.boot import booted
from tests.integration.processes import release_together
from tests.integration.workflow.test_event_gateway import RacePlugin

ROOT = Path(__file__).parents[3]
pytestmark = pytest.mark.slow


@pytest.fixture
async def service(database_url: str, clock: FixedClock) -> AsyncIterator[WorkflowService]:
    async with booted(database_url, clock, race_test=RacePlugin()) as service:
        yield service


def contenders(database_url: str, now: str, instances: list[str]) -> list[dict[str, object]]:
    env = dict(os.environ, TRAMITA_LOG_JSON="1", PYTHONPATH=str(ROOT))
    module = "tests.integration.workflow.race_event"
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", module, database_url, now, action, *instances],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for action in ("tick", "message")
    ]
    release_together(procs)
    results: list[dict[str, object]] = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        results.extend(json.loads(line) for line in out.strip().splitlines())
    return results


async def test_a_tick_and_messages_in_two_processes_take_one_branch_per_instance(
    service: WorkflowService, clock: FixedClock, database_url: str
) -> None:
    instances = []
    for _ in range(6):
        view = await service.engine.start(
            StartRequest(definition_key="race.demand", context={}, actor=Actor(id="u"))
        )
        instances.append(view.id)
    clock.advance(timedelta(days=10))
    results = contenders(database_url, clock.now().isoformat(), instances)
    (fired,) = [r["fired"] for r in results if "fired" in r]
    assert isinstance(fired, int)
    answers = [r for r in results if "instance" in r]
    won = [r["instance"] for r in answers if r["ok"]]
    assert {r["code"] for r in answers if not r["ok"]} <= {"no_receiver"}
    assert fired + len(won) == len(instances)
    await service.delivery.drain()
    assert await service.engine.tick() == 0
    for instance_id in instances:
        history = await service.engine.history(instance_id)
        taken = [h.to_node for h in history if h.to_node in ("answered", "lapsed")]
        assert taken == (["answered"] if instance_id in won else ["lapsed"])
        assert (await service.engine.status(instance_id)).status == "completed"
        stored, rebuilt = await service.engine.replayed_state(instance_id)
        assert stored == rebuilt
