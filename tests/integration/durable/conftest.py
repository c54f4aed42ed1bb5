"""Fixtures shared by the durable-execution tests: partners and the installed test plugin."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.partners import Erp, Gateway
from tests.integration.durable.harness import install_plugin


@pytest.fixture
def partners() -> Iterator[tuple[Erp, Gateway]]:
    erp, gateway = Erp().start(), Gateway().start()
    yield erp, gateway
    erp.stop()
    gateway.stop()


@pytest.fixture
def plugin_site(tmp_path: Path) -> Iterator[Path]:
    site = install_plugin(tmp_path / "site")
    sys.path.insert(0, str(site))
    yield site
    sys.path.remove(str(site))
    for name in [m for m in sys.modules if m.startswith("tramita_durable_test")]:
        del sys.modules[name]
