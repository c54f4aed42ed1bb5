"""workflow_0008 on a database made before it (both backends): drafts get ``import_report``."""

from __future__ import annotations

import sqlalchemy as sa

from core import migrate
from core.app import Platform
from core.db import sync_url


def _has_column(engine: sa.Engine) -> bool:
    columns = sa.inspect(engine).get_columns("workflow_definition_drafts")
    return "import_report" in {c["name"] for c in columns}


def test_workflow_0008_adds_the_import_report_to_an_older_database(
    database_url: str, platform: Platform
) -> None:
    engine = sa.create_engine(sync_url(database_url))
    try:
        with engine.begin() as conn:
            conn.execute(
                sa.text("ALTER TABLE workflow_definition_drafts DROP COLUMN import_report")
            )
            conn.execute(
                sa.text(
                    "UPDATE alembic_version SET version_num = 'workflow_0007' "
                    "WHERE version_num LIKE 'workflow_0%'"
                )
            )
        assert not _has_column(engine)
        heads = migrate.upgrade(database_url, platform.collected.migrations)
        assert any(h.startswith("workflow_") and h >= "workflow_0008" for h in heads)
        assert _has_column(engine)
    finally:
        engine.dispose()
