"""workflow_0017 on a database made before it (both backends): definitions and drafts get an
owner column, empty, so every definition stored before stays the deployment's, shared by every
tenant and started as before; the revision re-runs safely."""

from __future__ import annotations

import sqlalchemy as sa

from contracts.workflow.types import StartRequest
from core import migrate
from core.app import Platform
from core.db import sync_url
from services.workflow.bootstrap import service_of
from tests.integration.deadlines.esic import ESIC, OFFICER

TABLES = ("workflow_definitions", "workflow_definition_drafts")


async def test_workflow_0017_keeps_every_stored_definition_shared(
    database_url: str, platform: Platform
) -> None:
    service = service_of(platform)
    await service.engine.publisher.publish(ESIC, actor=OFFICER)
    engine = sa.create_engine(sync_url(database_url))
    try:
        with engine.begin() as conn:
            for table in TABLES:
                conn.execute(sa.text(f"ALTER TABLE {table} DROP COLUMN tenant"))
            conn.execute(
                sa.text(
                    "UPDATE alembic_version SET version_num = 'workflow_0016' "
                    "WHERE version_num LIKE 'workflow_0%'"
                )
            )
        heads = migrate.upgrade(database_url, platform.collected.migrations)
        assert any(h.startswith("workflow_") and h >= "workflow_0017" for h in heads)
        inspector = sa.inspect(engine)
        for table in TABLES:
            (column,) = [c for c in inspector.get_columns(table) if c["name"] == "tenant"]
            assert column["nullable"] is True, table
        with engine.connect() as conn:
            owners = conn.execute(sa.text("SELECT tenant FROM workflow_definitions")).all()
        assert len(owners) >= 1 and set(owners) == {(None,)}
        assert migrate.upgrade(database_url, platform.collected.migrations) == heads  # re-runs
    finally:
        engine.dispose()
    (version,) = await service.reads.versions("esic.request", tenant="norte")
    assert version.version == 1  # shared: another tenant sees it
    view = await service.engine.start(
        StartRequest(definition_key="esic.request", actor=OFFICER, tenant="norte")
    )
    assert view.definition_key == "esic.request" and view.status == "waiting"
