"""Timers in bulk: due timers fire many per transaction, and several tick processes at once
share them — each of 10,000 timers (2,000 on SQLite) fires exactly once, with one history row
each, on SQLite and PostgreSQL (real processes, as in production)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from services.workflow.persistence import tables as t
from tests.fakes.boot import booted
from tests.integration.processes import release_together

ROOT = Path(__file__).parents[3]
PROCESS = "tests.integration.workflow.tick_process"
TIMERS = {"postgresql": 10_000, "sqlite": 2_000}
"""SQLite has one writer at a time: its processes take turns, so fewer timers show the same."""
FLOW = {
    "format": 1,
    "key": "bulk.wait",
    "name": "Wait an hour",
    "protocol_prefix": "BLK",
    "nodes": [
        {"id": "begin", "type": "start", "next": "wait"},
        {"id": "wait", "type": "timer", "duration": "PT1H", "next": "done"},
        {"id": "done", "type": "end"},
    ],
}


@pytest.fixture
async def wf(database_url: str, clock: FixedClock) -> AsyncIterator[WorkflowService]:
    async with booted(database_url, clock) as service:
        await service.engine.publisher.publish(FLOW, actor=Actor.system("test"))
        yield service


async def _waiting(wf: WorkflowService, count: int) -> str:
    """``count`` instances waiting on their hour timer: one started through the engine, the
    rest copies of its rows (new ids and protocols), so every timer is one ``decide()``
    accepts. Returns the database URL's engine-free form for the tick processes."""
    seed = await wf.engine.start(StartRequest(definition_key="bulk.wait"))
    engine = wf.platform.database
    async with engine.begin() as conn:
        instance = dict(
            (await conn.execute(sa.select(t.instances).where(t.instances.c.id == seed.id)))
            .one()
            ._mapping
        )
        timer = dict(
            (await conn.execute(sa.select(t.timers).where(t.timers.c.instance_id == seed.id)))
            .one()
            ._mapping
        )
        for start in range(1, count, 2000):
            batch = range(start, min(start + 2000, count))
            ids = [f"0190d1a0-0000-7000-8000-{n:012d}" for n in batch]
            await conn.execute(
                t.instances.insert(),
                [
                    {**instance, "id": i, "protocol": f"BLK-C{n:07d}"}
                    for i, n in zip(ids, batch, strict=True)
                ],
            )
            await conn.execute(
                t.timers.insert(),
                [
                    {
                        **timer,
                        "id": f"0190d1a0-0000-7000-9000-{n:012d}",
                        "instance_id": i,
                        "due_at": timer["due_at"] + timedelta(seconds=n % 60),
                    }
                    for i, n in zip(ids, batch, strict=True)
                ],
            )
    return seed.id


def _race(database_url: str, later: str, processes: int) -> list[int]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", PROCESS, database_url, later, "500"],
            cwd=ROOT,
            env=env,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(processes)
    ]
    release_together(procs)
    fired = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        fired.append(int(out.strip().splitlines()[-1]))
    return fired


@pytest.mark.slow
@pytest.mark.parametrize("processes", [2, 4])
async def test_concurrent_tick_processes_fire_each_timer_exactly_once(
    wf: WorkflowService, clock: FixedClock, database_url: str, backend: str, processes: int
) -> None:
    count = TIMERS[backend]
    await _waiting(wf, count)
    later = (clock.now() + timedelta(hours=2)).isoformat()
    fired = _race(database_url, later, processes)
    assert sum(fired) == count
    engine = wf.platform.database
    h = t.history.c
    async with engine.connect() as conn:
        statuses = dict(
            (
                await conn.execute(
                    sa.select(t.timers.c.status, sa.func.count()).group_by(t.timers.c.status)
                )
            ).all()
        )
        per_instance = (
            await conn.execute(
                sa.select(h.instance_id, sa.func.count())
                .where(h.event == "timer_fired")
                .group_by(h.instance_id)
            )
        ).all()
        ended = (
            await conn.execute(
                sa.select(sa.func.count()).where(t.instances.c.status == "completed")
            )
        ).scalar()
    assert statuses == {"fired": count}
    assert len(per_instance) == count and {n for _, n in per_instance} == {1}
    assert ended == count
    assert await wf.engine.tick() == 0


async def test_one_tick_fires_every_due_timer_in_batches_and_leaves_the_rest(
    wf: WorkflowService, clock: FixedClock
) -> None:
    await _waiting(wf, 1_234)
    clock.advance(timedelta(minutes=60, seconds=30))  # half of the copies are due (n % 60)
    first = await wf.engine._timers.tick(limit=100, concurrency=2)  # type: ignore[attr-defined]
    assert 600 <= first < 1_234
    engine = wf.platform.database
    async with engine.connect() as conn:
        pending = (
            await conn.execute(
                sa.select(sa.func.count()).where(
                    t.timers.c.status == "pending", t.timers.c.due_at <= clock.now()
                )
            )
        ).scalar()
    assert pending == 0
    clock.advance(timedelta(minutes=1))
    assert await wf.engine.tick() == 1_234 - first
