"""workflow_0015 on a database made before it (both backends): tasks get their case's tenant
(``NOT NULL`` on PostgreSQL), and the tenant's inbox indexes appear."""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa

from core import migrate
from core.app import Platform
from core.db import sync_url
from services.workflow.persistence import tables as t

INDEXES = {"ix_workflow_tasks_tenant_queue", "ix_workflow_tasks_tenant_assignee"}
NOW = datetime(2026, 12, 1, tzinfo=UTC)


def _case(conn: sa.Connection, n: int, tenant: str) -> str:
    """An instance of ``tenant`` with one open task, written as before workflow_0015."""
    instance, task = (
        f"00000000-0000-7000-8000-00000000010{n}",
        f"00000000-0000-7000-8000-00000000020{n}",
    )
    conn.execute(
        t.instances.insert().values(
            id=instance,
            tenant=tenant,
            version_id="00000000-0000-7000-8000-000000000002",
            definition_key="old.flow",
            definition_version=1,
            protocol=f"OLD-2026-{n}",
            status="waiting",
            current_nodes=["review"],
            state={},
            context={},
            started_at=NOW,
            updated_at=NOW,
            row_version=1,
        )
    )
    conn.execute(
        sa.insert(t.tasks).values(
            id=task,
            instance_id=instance,
            token_id="t",
            node_id="review",
            attempt_group=1,
            name="Review",
            queue="old.queue",
            status="ready",
            outcomes=[],
            priority=0,
            created_at=NOW,
        )
    )
    return task


def test_workflow_0015_gives_every_existing_task_its_cases_tenant(
    database_url: str, platform: Platform
) -> None:
    engine = sa.create_engine(sync_url(database_url))
    try:
        with engine.begin() as conn:
            for index in sorted(INDEXES):
                conn.execute(sa.text(f"DROP INDEX {index}"))
            conn.execute(sa.text("ALTER TABLE workflow_tasks DROP COLUMN tenant"))
            conn.execute(
                t.definitions.insert().values(
                    id="00000000-0000-7000-8000-000000000001",
                    key="old.flow",
                    name="Old",
                    created_at=NOW,
                )
            )
            conn.execute(
                t.versions.insert().values(
                    id="00000000-0000-7000-8000-000000000002",
                    definition_id="00000000-0000-7000-8000-000000000001",
                    version=1,
                    status="published",
                    checksum="x",
                    schema="{}",
                    created_at=NOW,
                )
            )
            tasks = {_case(conn, 1, "norte"): "norte", _case(conn, 2, "sul"): "sul"}
            conn.execute(
                sa.text(
                    "UPDATE alembic_version SET version_num = 'workflow_0014' "
                    "WHERE version_num LIKE 'workflow_0%'"
                )
            )
        assert "tenant" not in {c["name"] for c in sa.inspect(engine).get_columns("workflow_tasks")}
        heads = migrate.upgrade(database_url, platform.collected.migrations)
        assert any(h.startswith("workflow_") and h >= "workflow_0015" for h in heads)
        inspector = sa.inspect(engine)
        assert {i["name"] for i in inspector.get_indexes("workflow_tasks")} >= INDEXES
        (column,) = [c for c in inspector.get_columns("workflow_tasks") if c["name"] == "tenant"]
        assert column["nullable"] is (engine.dialect.name == "sqlite")  # NOT NULL on PostgreSQL
        with engine.connect() as conn:
            rows = conn.execute(sa.select(t.tasks.c.id, t.tasks.c.tenant)).all()
        assert {str(r.id): r.tenant for r in rows} == tasks
    finally:
        engine.dispose()
