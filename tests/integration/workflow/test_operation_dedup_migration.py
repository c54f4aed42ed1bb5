"""workflow_0007 on a database made before it (both backends): the operations table gets its
``dedup_key`` column and the partial unique index over queued and running operations."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from core import migrate
from core.app import Platform
from core.db import sync_url

INDEX = "ux_workflow_operations_active_dedup"


def _shape(engine: sa.Engine) -> tuple[bool, bool]:
    inspector = sa.inspect(engine)
    columns = {c["name"] for c in inspector.get_columns("workflow_operations")}
    indexes = {i["name"] for i in inspector.get_indexes("workflow_operations")}
    return "dedup_key" in columns, INDEX in indexes


def test_workflow_0007_adds_the_key_and_its_index_to_an_older_database(
    database_url: str, platform: Platform
) -> None:
    branches = platform.collected.migrations
    engine = sa.create_engine(sync_url(database_url))
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(f"DROP INDEX {INDEX}"))
            conn.execute(sa.text("ALTER TABLE workflow_operations DROP COLUMN dedup_key"))
            conn.execute(
                sa.text(
                    "UPDATE alembic_version SET version_num = 'workflow_0006' "
                    "WHERE version_num LIKE 'workflow_0%'"
                )
            )
        assert _shape(engine) == (False, False)
    finally:
        heads = migrate.upgrade(database_url, branches)
    assert any(h.startswith("workflow_") and h >= "workflow_0007" for h in heads)
    assert _shape(engine) == (True, True)
    insert = sa.text(
        "INSERT INTO workflow_operations (id, tenant, kind, started_by, started_by_kind, "
        "params, total, done, refused, status, created_at, dedup_key) VALUES (:id, 't', "
        "'bulk_claim', 'u', 'user', '{}', 1, 0, 0, :status, CURRENT_TIMESTAMP, 'k')"
    )
    with engine.begin() as conn:  # finished operations may share a key with a running one
        for n, status in enumerate(("finished", "cancelled", "running")):
            conn.execute(
                insert, {"id": f"019cae6b-6600-7000-8000-00000000000{n}", "status": status}
            )
    with pytest.raises(IntegrityError), engine.begin() as conn:  # but two running may not
        conn.execute(insert, {"id": "019cae6b-6600-7000-8000-000000000009", "status": "queued"})
    engine.dispose()
