"""workflow_0018 on a database made before it (both backends): the instances' subject, business
key and parent indexes keep only the rows that have one, and a lookup by a value still reads
them; the revision re-runs safely."""

from __future__ import annotations

import sqlalchemy as sa

from core import migrate
from core.app import Platform
from core.db import sync_url

INDEXES = {
    "ix_workflow_instances_subject": ("subject_type, subject_id", "subject_type"),
    "ix_workflow_instances_business_key": ("business_key", "business_key"),
    "ix_workflow_instances_parent": ("parent_instance_id", "parent_instance_id"),
}
LOOKUPS = {
    "ix_workflow_instances_subject": "subject_type = 'x' AND subject_id = 'y'",
    "ix_workflow_instances_business_key": "business_key = 'x'",
    "ix_workflow_instances_parent": "parent_instance_id = '0190a0a0-0000-7000-8000-000000000000'",
}


def _definition(conn: sa.Connection, name: str) -> str:
    if conn.dialect.name == "postgresql":
        query = "SELECT indexdef FROM pg_indexes WHERE indexname = :name"
    else:
        query = "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = :name"
    return str(conn.execute(sa.text(query), {"name": name}).scalar_one())


def _plan(conn: sa.Connection, where: str) -> str:
    query = f"SELECT id FROM workflow_instances WHERE {where}"
    if conn.dialect.name == "postgresql":
        conn.execute(sa.text("SET LOCAL enable_seqscan = off"))
        return "\n".join(r[0] for r in conn.execute(sa.text(f"EXPLAIN {query}")))
    return "\n".join(str(r[-1]) for r in conn.execute(sa.text(f"EXPLAIN QUERY PLAN {query}")))


def test_workflow_0018_keeps_the_instances_without_a_value_out_of_three_indexes(
    database_url: str, platform: Platform
) -> None:
    engine = sa.create_engine(sync_url(database_url))
    try:
        with engine.begin() as conn:
            for name, (columns, _) in INDEXES.items():
                conn.execute(sa.text(f"DROP INDEX {name}"))
                conn.execute(sa.text(f"CREATE INDEX {name} ON workflow_instances ({columns})"))
                assert "NOT NULL" not in _definition(conn, name)
            conn.execute(
                sa.text(
                    "UPDATE alembic_version SET version_num = 'workflow_0017' "
                    "WHERE version_num LIKE 'workflow_0%'"
                )
            )
        heads = migrate.upgrade(database_url, platform.collected.migrations)
        assert any(h.startswith("workflow_") and h >= "workflow_0018" for h in heads)
        with engine.begin() as conn:
            for name, (_, column) in INDEXES.items():
                assert f"WHERE {column} IS NOT NULL" in _definition(conn, name).replace("(", "")
                assert name in _plan(conn, LOOKUPS[name])
        assert migrate.upgrade(database_url, platform.collected.migrations) == heads  # re-runs
    finally:
        engine.dispose()
