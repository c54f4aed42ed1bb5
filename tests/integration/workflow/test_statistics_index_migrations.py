"""workflow_0009 and esic_0002 on a database made before them (both backends): the indexes the
e-SIC statistics read by (instances by definition and start, requests by receipt) appear; so
does workflow_0014's, the instances a parent called (issue #24)."""

from __future__ import annotations

import sqlalchemy as sa

from core import migrate
from core.app import Platform
from core.db import sync_url

INDEXES = (
    ("workflow_instances", "ix_workflow_instances_started", "workflow_0009", "workflow_0008"),
    ("esic_requests", "ix_esic_requests_created", "esic_0002", "esic_0001"),
    ("workflow_instances", "ix_workflow_instances_parent", "workflow_0014", "workflow_0013"),
)


def _indexes(engine: sa.Engine) -> set[str]:
    inspector = sa.inspect(engine)
    return {
        i["name"] or ""
        for table in ("workflow_instances", "esic_requests")
        for i in inspector.get_indexes(table)
    }


def test_the_statistics_indexes_are_added_to_an_older_database(
    database_url: str, platform: Platform
) -> None:
    engine = sa.create_engine(sync_url(database_url))
    try:
        with engine.begin() as conn:
            for _table, index, revision, before in INDEXES:
                conn.execute(sa.text(f"DROP INDEX {index}"))
                conn.execute(
                    sa.text(
                        "UPDATE alembic_version SET version_num = :before"
                        " WHERE version_num LIKE :branch AND version_num >= :rev"
                    ),
                    # The branch's head may be a later revision; each re-runs safely.
                    {"before": before, "rev": revision, "branch": revision[:-4] + "%"},
                )
        assert not {i[1] for i in INDEXES} & _indexes(engine)
    finally:
        heads = migrate.upgrade(database_url, platform.collected.migrations)
    assert any(h.startswith("esic_") and h >= "esic_0002" for h in heads)
    assert any(h.startswith("workflow_") and h >= "workflow_0009" for h in heads)
    assert {i[1] for i in INDEXES} <= _indexes(engine)
    engine.dispose()
