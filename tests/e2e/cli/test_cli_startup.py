"""What a command imports decides how fast it starts: the read commands load neither the
structured logs nor the PostgreSQL driver on SQLite, and no command that serves no HTTP loads
Litestar or the controllers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.cli.helpers import PYTHONPATH, ROOT

UNKNOWN = "00000000-0000-0000-0000-000000000000"
WEB = {"litestar", "services.workflow.api.routes", "services.workflow.ui.routes", "uvicorn"}


def _loaded(args: list[str], database: Path, tmp_path: Path) -> set[str]:
    seen = tmp_path / "modules.json"
    code = (
        "import json, sys\n"
        "from core.cli import main\n"
        f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
        f"open({str(seen)!r}, 'w').write(json.dumps(sorted(sys.modules)))\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": PYTHONPATH,
        "TRAMITA_DATABASE_URL": f"sqlite+aiosqlite:///{database}",
    }
    env.pop("TRAMITA_VERBOSE", None)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert "Traceback" not in done.stderr, done.stderr
    return set(json.loads(seen.read_text()))


@pytest.fixture
def database(sqlite_template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "tramita.db"
    shutil.copy(sqlite_template, path)
    return path


@pytest.mark.parametrize("args", [["instance", "show", UNKNOWN], ["instance", "list"]])
def test_a_read_command_loads_no_logging_no_psycopg_no_web(
    args: list[str], database: Path, tmp_path: Path
) -> None:
    loaded = _loaded(args, database, tmp_path)
    assert "sqlalchemy" in loaded  # it did read the database ...
    heavy = {"structlog", "psycopg", "services.workflow.bootstrap", *WEB}
    assert not heavy & loaded, heavy & loaded  # ... with nothing else


def test_a_command_that_boots_the_platform_loads_no_web_code(
    database: Path, tmp_path: Path
) -> None:
    loaded = _loaded(["workflow", "list"], database, tmp_path)
    assert "services.workflow.bootstrap" in loaded  # it booted the service ...
    assert not WEB & loaded, WEB & loaded  # ... without the HTTP layer
