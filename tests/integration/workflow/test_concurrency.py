"""Real processes racing on the same task: exactly one wins, every other gets a clear refusal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from services.workflow.bootstrap import WorkflowService
from tests.fakes.purchase import order
from tests.integration.human.casework import uid
from tests.integration.processes import release_together

ROOT = Path(__file__).parents[3]
pytestmark = pytest.mark.slow


def race(
    database_url: str, action: str, task_id: str, actors: list[str], processes: int
) -> list[dict[str, object]]:
    """Split ``actors`` over ``processes`` real processes; release them all at once."""
    env = dict(os.environ, TRAMITA_LOG_JSON="1", PYTHONPATH=str(ROOT))
    groups = [actors[i::processes] for i in range(processes)]
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.integration.workflow.race_complete",
                database_url,
                action,
                task_id,
                *group,
            ],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for group in groups
    ]
    release_together(procs)
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        results.extend(json.loads(line) for line in out.strip().splitlines())
    assert len(results) == len(actors)
    return results


async def _waiting_task(wf: WorkflowService) -> tuple[str, str]:
    view = await wf.engine.start(
        StartRequest(
            definition_key="purchase.approval", context=order(50_000), actor=Actor(id="author")
        )
    )
    await wf.delivery.drain()
    (task,) = await wf.engine.tasks(view.id)
    return view.id, task.id


async def test_twenty_concurrent_completions_make_one_transition(
    wf: WorkflowService, database_url: str
) -> None:
    instance_id, task_id = await _waiting_task(wf)
    before = len(await wf.engine.history(instance_id))
    results = race(database_url, "complete", task_id, [uid("manager-1")] * 20, processes=4)
    assert sum(1 for r in results if r["ok"]) == 1
    refusals = [r for r in results if not r["ok"]]
    assert len(refusals) == 19
    assert {r["problem"] for r in refusals} == {"invalid-transition"}
    history = await wf.engine.history(instance_id)
    completions = [h for h in history[before:] if h.event == "task_completed"]
    assert len(completions) == 1
    stored, rebuilt = await wf.engine.replayed_state(instance_id)
    assert stored == rebuilt


async def test_ten_users_claiming_at_once_leave_one_owner(
    wf: WorkflowService, database_url: str
) -> None:
    _instance_id, task_id = await _waiting_task(wf)
    users = [uid(f"manager-{i}") for i in range(10)]
    results = race(database_url, "claim", task_id, users, processes=2)
    winners = [r["actor"] for r in results if r["ok"]]
    assert len(winners) == 1
    assert {r["problem"] for r in results if not r["ok"]} == {"conflict"}
    (task,) = await wf.engine.tasks(_instance_id)
    assert (task.status, task.assignee) == ("claimed", winners[0])
