"""Test modules are imported by their file name (the test folders are not packages), so two
test files with one name in different folders make pytest refuse to collect the second one
("import file mismatch") — in CI, after the whole run. Caught here, in a second."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_no_two_test_modules_share_a_file_name() -> None:
    seen: dict[str, list[str]] = defaultdict(list)
    for path in TESTS.rglob("test_*.py"):
        if (path.parent / "__init__.py").exists():
            continue  # inside a package: imported by its dotted name
        seen[path.name].append(str(path.relative_to(TESTS)))
    assert {name: where for name, where in seen.items() if len(where) > 1} == {}
