"""No module of ours outside tests/ and bench/ grows past 400 lines (issue #21's rule): a file
that long holds more than one idea, and a reader should find each idea in a file of its own."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 400
OUTSIDE = ("tests/", "bench/")
"""Tests and benchmarks may be long: a scenario reads best in one place."""


def _tracked_python() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "*.py"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    return [name for name in listed.stdout.decode().split("\0") if name]


def test_every_module_outside_tests_and_bench_is_under_400_lines() -> None:
    names = [name for name in _tracked_python() if not name.startswith(OUTSIDE)]
    assert len(names) > 100, "git listed too few files: the check would not check anything"
    too_long = {
        name: count
        for name in names
        if (ROOT / name).is_file()
        and (count := len((ROOT / name).read_text(encoding="utf-8").splitlines())) > LIMIT
    }
    assert too_long == {}, f"split these modules (lines > {LIMIT}): {too_long}"
