"""Starting real contender processes at the same instant (the concurrency tests' gate)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from typing import Any


def release_together(procs: Sequence[subprocess.Popen[str]]) -> None:
    """Wait until every process has booted (each prints ``ready`` and waits for a line on its
    stdin), then let them all go at once: the race starts after the slow part, not during it."""
    for proc in procs:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.strip() == "ready", proc.stderr.read() if proc.stderr else line
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()


def race_results(procs: Sequence[subprocess.Popen[str]]) -> list[Any]:
    """Release the processes together, wait for each to succeed, and return every JSON line
    they printed (one result per line), in process order."""
    release_together(procs)
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        results.extend(json.loads(line) for line in out.strip().splitlines())
    return results
