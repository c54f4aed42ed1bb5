"""Several processes booting at once on a fresh database all start: they take turns to
publish what the modules registered (queues, forms, definitions), so none fails on a row
another one inserted first (real processes; SQLite and PostgreSQL)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine

from services.workflow.persistence.tables_human import queues

ROOT = Path(__file__).parents[3]


@pytest.mark.slow
async def test_four_processes_booting_together_all_start(database_url: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.integration.human.tick_race",
                database_url,
                "2026-03-02T12:00:00+00:00",
            ],
            cwd=ROOT,
            env=env,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(4)
    ]
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-2000:]
        assert out.splitlines()[0] == "ready"
    engine = create_async_engine(database_url)
    try:
        async with engine.connect() as conn:
            keys = (await conn.execute(sa.select(queues.c.key))).scalars().all()
    finally:
        await engine.dispose()
    assert "casework.reviewers" in keys and len(keys) == len(set(keys))
