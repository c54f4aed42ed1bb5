"""workflow_0011 on a database made before it (both backends): documents get their access level
(existing ones public) and legal ground, document types their default level."""

from __future__ import annotations

import sqlalchemy as sa

from core import migrate
from core.app import Platform
from core.db import sync_url

NEW = {"workflow_documents": {"level", "ground"}, "workflow_document_types": {"access"}}


def _columns(engine: sa.Engine, table: str) -> set[str]:
    return {c["name"] for c in sa.inspect(engine).get_columns(table)}


def test_workflow_0011_adds_the_document_levels_to_an_older_database(
    database_url: str, platform: Platform
) -> None:
    engine = sa.create_engine(sync_url(database_url))
    try:
        with engine.begin() as conn:
            for table, columns in NEW.items():
                for column in sorted(columns):
                    conn.execute(sa.text(f"ALTER TABLE {table} DROP COLUMN {column}"))
            conn.execute(
                sa.text(
                    "INSERT INTO workflow_documents (id, instance_id, type_key, origin, "
                    "media_type, filename, size, content_hash, status, generated_at, created_by) "
                    "VALUES ('00000000-0000-0000-0000-000000000001', "
                    "'00000000-0000-0000-0000-000000000002', 'x', 'uploaded', 'application/pdf', "
                    "'a.pdf', 1, 'h', 'current', '2026-01-01 00:00:00', 'u')"
                )
            )
            conn.execute(
                sa.text(
                    "UPDATE alembic_version SET version_num = 'workflow_0010' "
                    "WHERE version_num LIKE 'workflow_0%'"
                )
            )
        assert not any(_columns(engine, t) & c for t, c in NEW.items())
        heads = migrate.upgrade(database_url, platform.collected.migrations)
        assert any(h.startswith("workflow_") and h >= "workflow_0011" for h in heads)
        assert all(c <= _columns(engine, t) for t, c in NEW.items())
        with engine.connect() as conn:
            levels = conn.execute(sa.text("SELECT level, ground FROM workflow_documents")).all()
        assert [tuple(r) for r in levels] == [("public", None)]
    finally:
        engine.dispose()
