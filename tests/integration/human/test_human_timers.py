"""Task SLAs and boundary timers with a fixed clock: reminder, escalation, expiry, and two
ticks in separate processes firing every timer exactly once."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from core.audit import read_trail
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from tests.integration.human.casework import CaseworkPlugin
from tests.integration.human.kit import BOSS, open_case, staff
from tests.integration.processes import release_together

ROOT = Path(__file__).parents[3]


async def test_a_task_is_due_when_its_first_boundary_timer_fires(
    wf: WorkflowService, clock: FixedClock
) -> None:
    _, task = await open_case(wf)
    assert task.due_at == clock.now() + timedelta(hours=24)


async def test_the_reminder_runs_its_side_path_and_leaves_the_task_open(
    wf: WorkflowService, clock: FixedClock, casework: CaseworkPlugin
) -> None:
    instance_id, task = await open_case(wf)
    clock.advance(timedelta(hours=24))
    assert await wf.engine.tick() == 1
    await wf.delivery.drain()
    assert casework.remind.calls == 1
    (still,) = [t for t in await wf.engine.tasks(instance_id) if t.id == task.id]
    assert (still.status, still.queue) == ("ready", "casework.reviewers")
    assert (await wf.engine.status(instance_id)).status == "waiting"


async def test_the_escalation_moves_the_task_to_the_supervisors(
    wf: WorkflowService, clock: FixedClock
) -> None:
    await staff(wf)
    instance_id, task = await open_case(wf)
    clock.advance(timedelta(hours=36))
    assert await wf.engine.tick() == 2  # the reminder, then the escalation
    (moved,) = [t for t in await wf.engine.tasks(instance_id) if t.id == task.id]
    assert (moved.queue, moved.status, moved.assignee) == ("casework.supervisors", "ready", None)
    async with wf.engine._uow() as uow:
        trail = await read_trail(uow.conn, "workflow_instance", instance_id)
    assert "workflow.task.escalated" in [r.entry.action for r in trail]
    assert (await wf.tasks.claim(task.id, actor=BOSS)).assignee == BOSS.id


async def test_the_expiry_closes_the_task_and_expires_the_instance(
    wf: WorkflowService, clock: FixedClock
) -> None:
    instance_id, task = await open_case(wf)
    clock.advance(timedelta(hours=48))
    assert await wf.engine.tick() == 3
    await wf.delivery.drain()
    assert (await wf.engine.status(instance_id)).status == "expired"
    (closed,) = [t for t in await wf.engine.tasks(instance_id) if t.id == task.id]
    assert closed.status == "cancelled"
    assert await wf.engine.tick() == 0


@pytest.mark.slow
async def test_two_concurrent_ticks_fire_each_timer_once(
    wf: WorkflowService, clock: FixedClock, database_url: str
) -> None:
    instances = [(await open_case(wf, str(i)))[0] for i in range(15)]
    later = (clock.now() + timedelta(hours=30)).isoformat()  # each case: one reminder due
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.integration.human.tick_race", database_url, later],
            cwd=ROOT,
            env=env,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(2)
    ]
    release_together(procs)
    fired = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        fired.append(int(out.strip().splitlines()[-1]))
    assert sum(fired) == len(instances)
    for instance_id in instances:
        history = await wf.engine.history(instance_id)
        assert sum(1 for h in history if h.event == "timer_fired") == 1
