"""The boundaries in importlinter.ini hold, and the check is able to fail."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
LINT = Path(sys.executable).with_name("lint-imports")
TREES = ["contracts", "core", "services", "modules"]


def _copy_tree(dest: Path) -> Path:
    for name in TREES:
        shutil.copytree(
            ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
        )
    shutil.copy(ROOT / "importlinter.ini", dest / "importlinter.ini")
    return dest


def _lint(cwd: Path) -> subprocess.CompletedProcess[str]:
    # The copy must be what is analysed: put it first on the path, ahead of the installed tree.
    env = dict(os.environ, PYTHONPATH=str(cwd))
    return subprocess.run(
        [str(LINT), "importlinter.ini", "--no-cache"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_repository_keeps_every_contract() -> None:
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("victim", "forbidden", "contract"),
    [
        ("modules/diario/domain.py", "import services.workflow.plugin", "modules never import"),
        ("modules/esic/domain.py", "import modules.noticias.domain", "independent"),
        ("contracts/kernel.py", "import core.clock", "contracts imports nothing"),
        ("core/clock.py", "import modules.diario.domain", "core imports only contracts"),
        ("services/workflow/plugin.py", "import modules.diario", "never imports a module"),
        (
            "services/workflow/runtime/kernel/state.py",
            "import services.workflow.runtime.services.engine",
            "the workflow service's layers",
        ),
        (
            "services/workflow/persistence/tables.py",
            "import services.workflow.api.routes",
            "the workflow service's layers",
        ),
        ("services/workflow/definition/model.py", "import litestar", "import no I/O framework"),
        ("contracts/kernel.py", "import sqlalchemy", "import no I/O framework"),
        (
            "services/workflow/runtime/services/engine.py",
            "import redis",
            "reaches I/O only through its ports",
        ),
    ],
)
def test_an_injected_forbidden_import_breaks_the_check(
    tmp_path: Path, victim: str, forbidden: str, contract: str
) -> None:
    tree = _copy_tree(tmp_path)
    assert _lint(tree).returncode == 0
    path = tree / victim
    path.write_text(path.read_text() + f"\n{forbidden}  # injected by the test\n")
    result = _lint(tree)
    assert result.returncode != 0
    assert "BROKEN" in result.stdout
    assert contract in result.stdout
