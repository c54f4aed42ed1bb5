"""workflow_0018 and workflow_0019 on a database made before them (both backends): the instances'
subject, business key and parent indexes keep only the rows that have one, the timers' due index
only the pending timers, and the queries by them still read them; the revisions re-run safely."""

from __future__ import annotations

import sqlalchemy as sa

from core import migrate
from core.app import Platform
from core.db import sync_url

INDEXES = {  # the columns before, the condition after
    "ix_workflow_instances_subject": ("subject_type, subject_id", "subject_type IS NOT NULL"),
    "ix_workflow_instances_business_key": ("business_key", "business_key IS NOT NULL"),
    "ix_workflow_instances_parent": ("parent_instance_id", "parent_instance_id IS NOT NULL"),
    "ix_workflow_timers_due": ("status, due_at", "status = 'pending'"),
}
LOOKUPS = {
    "ix_workflow_instances_subject": "subject_type = 'x' AND subject_id = 'y'",
    "ix_workflow_instances_business_key": "business_key = 'x'",
    "ix_workflow_instances_parent": "parent_instance_id = '0190a0a0-0000-7000-8000-000000000000'",
    "ix_workflow_timers_due": "status = 'pending' AND due_at <= '2026-01-01' ORDER BY due_at, id",
}


def _definition(conn: sa.Connection, name: str) -> str:
    if conn.dialect.name == "postgresql":
        query = "SELECT indexdef FROM pg_indexes WHERE indexname = :name"
    else:
        query = "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = :name"
    return str(conn.execute(sa.text(query), {"name": name}).scalar_one())


def _plan(conn: sa.Connection, name: str) -> str:
    table = "workflow_timers" if "timers" in name else "workflow_instances"
    query = f"SELECT id FROM {table} WHERE {LOOKUPS[name]}"
    if conn.dialect.name == "postgresql":
        conn.execute(sa.text("SET LOCAL enable_seqscan = off"))
        return "\n".join(r[0] for r in conn.execute(sa.text(f"EXPLAIN {query}")))
    return "\n".join(str(r[-1]) for r in conn.execute(sa.text(f"EXPLAIN QUERY PLAN {query}")))


def test_workflow_0018_0019_keep_rows_no_query_asks_for_out_of_four_indexes(
    database_url: str, platform: Platform
) -> None:
    engine = sa.create_engine(sync_url(database_url))
    try:
        with engine.begin() as conn:
            for name, (columns, _) in INDEXES.items():
                table = "workflow_timers" if "timers" in name else "workflow_instances"
                conn.execute(sa.text(f"DROP INDEX {name}"))
                conn.execute(sa.text(f"CREATE INDEX {name} ON {table} ({columns})"))
                assert "WHERE" not in _definition(conn, name)
            conn.execute(
                sa.text(
                    "UPDATE alembic_version SET version_num = 'workflow_0017' "
                    "WHERE version_num LIKE 'workflow_0%'"
                )
            )
        heads = migrate.upgrade(database_url, platform.collected.migrations)
        assert any(h.startswith("workflow_") and h >= "workflow_0019" for h in heads)
        with engine.begin() as conn:
            for name, (_, condition) in INDEXES.items():
                written = _definition(conn, name).replace("(", "").replace(")", "")
                assert f"WHERE {condition}" in written.replace("::text", "").replace('"', "")
                assert name in _plan(conn, name)
        assert migrate.upgrade(database_url, platform.collected.migrations) == heads  # re-runs
    finally:
        engine.dispose()
