"""Running ``tramita`` as a person does: a subprocess, its exit code, stdout and stderr."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[3]
TRAMITA = [sys.executable, "-c", "from core.cli import main; main()"]
ALVARA = ROOT / "examples" / "tramita-module-alvara"
PYTHONPATH = os.pathsep.join([str(ROOT), str(ALVARA), os.environ.get("PYTHONPATH", "")])
"""This checkout's code first (also the example module's, installed from elsewhere)."""
UNREACHABLE = "postgresql://postgres@127.0.0.1:1/tramita"
"""A PostgreSQL URL nothing listens on: every command that needs the database must fail."""


def run(
    *args: str, database_url: str = UNREACHABLE, timeout: float = 300, **env: str
) -> subprocess.CompletedProcess[str]:
    environment = {
        **os.environ,
        "PYTHONPATH": PYTHONPATH,
        "TRAMITA_DATABASE_URL": database_url,
        "TRAMITA_LANG": "pt_BR",
        "TRAMITA_REDIS_URL": "redis://127.0.0.1:1/0",
        **env,
    }
    environment.pop("TRAMITA_VERBOSE", None)
    return subprocess.run(
        [*TRAMITA, *args],
        env=environment,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The one error line of a failed command (a status line such as "publicando x…" may
    precede it); fails the test on a traceback, a log line or a second error line."""
    assert result.returncode != 0, result.stdout
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("erro: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], result.stderr
    assert not any(line.lstrip().startswith("{") for line in lines), result.stderr
    return errors[0]
