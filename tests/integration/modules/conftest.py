"""The outside example module (examples/tramita-module-alvara), installed as a distribution.

CI's bootstrap installs it into the venv (``pip install -e examples/tramita-module-alvara``);
where it is not installed (a developer's venv), the fixture installs it into a private site
for the test, exactly as a module team's package would be installed.
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[3]
EXAMPLE = ROOT / "examples" / "tramita-module-alvara"
DIST = "tramita-module-alvara"


def _installed() -> bool:
    try:
        importlib.metadata.distribution(DIST)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


@pytest.fixture(scope="session")
def alvara_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The PYTHONPATH entry that makes the module discoverable ("" when it is installed)."""
    if _installed():
        yield ""
        return
    site = tmp_path_factory.mktemp("alvara") / "site"
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
            str(EXAMPLE),
        ],
        check=True,
        capture_output=True,
    )
    sys.path.insert(0, str(site))
    importlib.invalidate_caches()
    try:
        yield str(site)
    finally:
        sys.path.remove(str(site))
        for name in [m for m in sys.modules if m.startswith("tramita_alvara")]:
            del sys.modules[name]
