"""workflow_0016 on a database made before it (both backends): the protocol counters become the
deployment tenant's (``TRAMITA_TENANT``), keyed by ``(tenant, prefix, year)``, and the next
case of an old series follows the last number it gave."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from contracts.workflow.types import StartRequest
from core import migrate
from core.app import Platform
from core.clock import FixedClock
from core.db import sync_url
from core.ids import UUIDv7Gen
from core.settings import Settings
from services.workflow.bootstrap import service_of
from tests.integration.deadlines.esic import ESIC, OFFICER

OLD_COUNTERS = """
CREATE TABLE workflow_protocol_counters (
    prefix VARCHAR(20) NOT NULL,
    year INTEGER NOT NULL,
    last INTEGER NOT NULL,
    PRIMARY KEY (prefix, year)
)
"""


async def test_workflow_0016_gives_the_counters_to_the_deployments_tenant(
    database_url: str, platform: Platform, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = sa.create_engine(sync_url(database_url))
    try:
        with engine.begin() as conn:
            conn.execute(sa.text("DROP TABLE workflow_protocol_counters"))
            conn.execute(sa.text(OLD_COUNTERS))
            conn.execute(
                sa.text(
                    "INSERT INTO workflow_protocol_counters (prefix, year, last)"
                    " VALUES ('SIC', 2026, 41), ('OUV', 2025, 7)"
                )
            )
            conn.execute(
                sa.text(
                    "UPDATE alembic_version SET version_num = 'workflow_0015' "
                    "WHERE version_num LIKE 'workflow_0%'"
                )
            )
        monkeypatch.setenv("TRAMITA_TENANT", "prefeitura")
        heads = migrate.upgrade(database_url, platform.collected.migrations)
        assert any(h.startswith("workflow_") and h >= "workflow_0016" for h in heads)
        inspector = sa.inspect(engine)
        key = inspector.get_pk_constraint("workflow_protocol_counters")["constrained_columns"]
        assert sorted(key) == ["prefix", "tenant", "year"]
        (column,) = [
            c for c in inspector.get_columns("workflow_protocol_counters") if c["name"] == "tenant"
        ]
        assert column["nullable"] is False
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT * FROM workflow_protocol_counters")).all()
        assert sorted((r.tenant, r.prefix, r.year, r.last) for r in rows) == [
            ("prefeitura", "OUV", 2025, 7),
            ("prefeitura", "SIC", 2026, 41),
        ]
        assert migrate.upgrade(database_url, platform.collected.migrations) == heads  # re-runs
    finally:
        engine.dispose()
    upgraded = await Platform.boot(
        Settings(database_url=database_url, tenant="prefeitura"),
        clock=clock,
        ids=UUIDv7Gen(),
        upgrade=False,
    )
    try:
        service = service_of(upgraded)
        await service.engine.publisher.publish(ESIC, actor=OFFICER)
        view = await service.engine.start(
            StartRequest(definition_key="esic.request", actor=OFFICER)
        )
        assert view.protocol == "SIC-2026-000042"
    finally:
        await upgraded.close()
