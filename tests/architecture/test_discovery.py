"""Plugins are found through real entry points of installed distributions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PLUGINS = Path(__file__).parents[1] / "plugins"
TRAMITA = [sys.executable, "-c", "from core.cli import main; main()"]


def _install(dist: str, target: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(target),
            str(PLUGINS / dist),
        ],
        check=True,
        capture_output=True,
    )


def _tramita(args: list[str], extra_path: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    # This checkout's code after the plugin site (the installed copy may be another checkout).
    path = os.pathsep.join([str(extra_path), str(Path(__file__).parents[2])])
    env = dict(os.environ, PYTHONPATH=path, TRAMITA_LOG_JSON="0")
    return subprocess.run(
        [*TRAMITA, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
def test_a_plugin_installed_only_through_an_entry_point_is_found_and_called(
    tmp_path: Path,
) -> None:
    _install("sample", tmp_path / "site")
    listed = _tramita(["plugins", "--json"], tmp_path / "site", tmp_path)
    assert listed.returncode == 0, listed.stderr
    plugins = json.loads(listed.stdout)["plugins"]
    assert plugins["sample"] == {"permission": ["sample.touch"]}
    demo = _tramita(["demo"], tmp_path / "site", tmp_path)
    assert demo.returncode == 0, demo.stderr
    assert "[sample]\n  sample plugin was discovered and called" in demo.stdout


@pytest.mark.slow
def test_a_broken_plugin_is_named_in_one_clear_line(tmp_path: Path) -> None:
    _install("broken", tmp_path / "site")
    result = _tramita(["plugins"], tmp_path / "site", tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "erro: plugin 'broken' (tramita_broken.plugin) failed to load: "
        "RuntimeError: the broken plugin cannot start"
    )
    assert "Traceback" not in result.stderr
