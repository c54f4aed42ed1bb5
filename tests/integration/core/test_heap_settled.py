"""A long-running process settles its garbage collector after boot (core.heap); a one-shot
command does not. Checked in a child process, which boots as a command and then as a worker:
settling freezes the heap of the process that calls it, which must not be this test worker's.
The database plays no part (an SQLite copy of the migrated template)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CHILD = """
import asyncio, gc, json, sys
from core.app import Platform
from core.settings import Settings

async def main(url):
    seen = [gc.get_threshold()[0]]
    for role in ("cli", "worker"):
        platform = await Platform.boot(Settings(database_url=url), upgrade=False, role=role)
        await platform.close()
        seen.append([gc.get_threshold()[0], gc.get_freeze_count()])
    print(json.dumps(seen))

asyncio.run(main(sys.argv[1]))
"""


def test_a_long_running_role_settles_the_collector_and_a_command_does_not(
    sqlite_template: Path, tmp_path: Path
) -> None:
    path = tmp_path / "tramita.db"
    shutil.copy(sqlite_template, path)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, f"sqlite+aiosqlite:///{path}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    default, command, worker = json.loads(done.stdout.strip().splitlines()[-1])
    assert default == 700
    assert command == [700, 0]
    assert worker[0] == 50_000
    assert worker[1] > 10_000  # frozen: the boot's modules, tables and plugins
