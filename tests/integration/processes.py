"""Starting real contender processes at the same instant (the concurrency tests' gate)."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence


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
