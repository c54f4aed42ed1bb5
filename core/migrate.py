"""``tramita db upgrade``: apply every installed plugin's Alembic branch.

Each plugin declares its own branch (``tramita_register_migrations``); the kernel's is ``core``.
Upgrading to ``heads`` is idempotent: running it twice changes nothing the second time.
Downgrades are refused by every revision: a downgrade never drops data.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from core.db import sync_url

CORE_BRANCH = Path(__file__).parent / "migrations" / "versions"


def _config(branches: Mapping[str, Path]) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    locations = [str(CORE_BRANCH), *(str(p) for p in branches.values())]
    cfg.set_main_option("version_locations", " ".join(locations))
    cfg.set_main_option("path_separator", "space")
    return cfg


def upgrade(database_url: str, branches: Mapping[str, Path]) -> list[str]:
    """Bring the database to the heads of all branches; returns the heads now applied."""
    cfg = _config(branches)
    engine = sa.create_engine(sync_url(database_url))
    try:
        with engine.begin() as connection:
            cfg.attributes["connection"] = connection
            command.upgrade(cfg, "heads")
        return current_heads(database_url, branches)
    finally:
        engine.dispose()


def current_heads(database_url: str, branches: Mapping[str, Path]) -> list[str]:
    engine = sa.create_engine(sync_url(database_url))
    try:
        with engine.connect() as connection:
            return sorted(MigrationContext.configure(connection).get_current_heads())
    finally:
        engine.dispose()


def known_heads(branches: Mapping[str, Path]) -> list[str]:
    return sorted(ScriptDirectory.from_config(_config(branches)).get_heads())
