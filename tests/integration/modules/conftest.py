"""The outside example module (examples/tramita-module-alvara), installed as a distribution,
and a fresh database of the parametrised backend for it.

CI's bootstrap installs it into the venv (``pip install -e examples/tramita-module-alvara``);
where it is not installed (a developer's venv), it is installed once per session into a private
site that each test puts on ``sys.path`` only while it runs — and only after the session's
migrated template exists, so the other tests' databases never carry the module's branch.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

ROOT = Path(__file__).parents[3]
EXAMPLE = ROOT / "examples" / "tramita-module-alvara"
DIST = "tramita-module-alvara"
PG_ADMIN_URL = os.environ.get("TRAMITA_TEST_PG_ADMIN", "postgresql://postgres@127.0.0.1:5432/test")


def _installed() -> bool:
    try:
        importlib.metadata.distribution(DIST)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


@pytest.fixture(scope="session")
def alvara_dist(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The site holding the installed example ("" when the venv has it already)."""
    if _installed():
        return ""
    work = tmp_path_factory.mktemp("alvara")
    # Built from a copy: pip leaves build/ and *.egg-info beside the sources, and an egg-info on
    # sys.path (the module's own tests put its folder there) would make it discoverable.
    source = shutil.copytree(
        EXAMPLE, work / "src", ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    )
    site = work / "site"
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
            str(site),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    return str(site)


@pytest.fixture
def fresh_database_url(database_url: str, backend: str, tmp_path: Path) -> Iterator[str]:
    """An empty database (no tables at all): the module is installed on a fresh platform, and
    ``tramita db upgrade`` creates the kernel's, the service's and the module's tables."""
    if backend == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'fresh.db'}"
        return
    name = f"tramita_alvara_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    yield f"{base}/{name}".replace("postgresql://", "postgresql+psycopg://", 1)
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def alvara_site(alvara_dist: str, fresh_database_url: str) -> Iterator[str]:
    """The PYTHONPATH entry that makes the module discoverable, on ``sys.path`` for one test."""
    if not alvara_dist:
        yield ""
        return
    sys.path.insert(0, alvara_dist)
    importlib.invalidate_caches()
    try:
        yield alvara_dist
    finally:
        sys.path.remove(alvara_dist)
        for name in [m for m in sys.modules if m.startswith("tramita_alvara")]:
            del sys.modules[name]
