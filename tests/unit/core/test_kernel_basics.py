"""Settings, clocks, ids and plain status machines."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from contracts.errors import ConfigurationError, InvalidTransition
from core.clock import FixedClock, SystemClock
from core.ids import SequentialIdGen, UUIDv7Gen
from core.settings import DEFAULT_SQLITE, load_settings
from modules.diario.domain import ACT_STATUS, ActStatus


def test_settings_default_to_the_embedded_sqlite_and_in_process_delivery() -> None:
    s = load_settings({})
    assert s.database_url == DEFAULT_SQLITE
    assert s.embedded


def test_settings_normalise_postgres_urls_to_psycopg() -> None:
    s = load_settings(
        {"TRAMITA_DATABASE_URL": "postgresql://u@h/db", "TRAMITA_REDIS_URL": "redis://h"}
    )
    assert s.database_url == "postgresql+psycopg://u@h/db"
    assert not s.embedded


def test_unknown_database_scheme_is_a_clear_error() -> None:
    with pytest.raises(ConfigurationError, match="postgresql:// or sqlite:///"):
        load_settings({"TRAMITA_DATABASE_URL": "mysql://x/y"})


def test_production_refuses_the_development_secret() -> None:
    with pytest.raises(ConfigurationError, match="TRAMITA_SECRET_KEY"):
        load_settings({"TRAMITA_ENV": "production"})


def test_the_connection_pool_size_is_a_setting() -> None:
    assert load_settings({}).db_pool_size == 10
    assert load_settings({"TRAMITA_DB_POOL_SIZE": "40"}).db_pool_size == 40
    for wrong in ("0", "-3", "ten", "2.5"):
        with pytest.raises(ConfigurationError, match="TRAMITA_DB_POOL_SIZE"):
            load_settings({"TRAMITA_DB_POOL_SIZE": wrong})


def test_the_idempotency_lease_is_a_setting() -> None:
    assert load_settings({}).idempotency_lease_s == 30
    assert load_settings({"TRAMITA_IDEMPOTENCY_LEASE_S": "5"}).idempotency_lease_s == 5
    for wrong in ("0", "-1", "soon"):
        with pytest.raises(ConfigurationError, match="TRAMITA_IDEMPOTENCY_LEASE_S"):
            load_settings({"TRAMITA_IDEMPOTENCY_LEASE_S": wrong})


def test_fixed_clock_moves_only_when_told() -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    clock = FixedClock(t0)
    assert clock.now() == t0
    assert clock.advance(timedelta(hours=2)) == t0 + timedelta(hours=2)
    with pytest.raises(ValueError, match="aware"):
        FixedClock(datetime(2026, 1, 1))


def test_system_clock_is_aware_utc() -> None:
    assert SystemClock().now().tzinfo is UTC


def test_uuid7_ids_are_version_7_and_time_ordered() -> None:
    gen = UUIDv7Gen()
    ids = [gen.new_id() for _ in range(100)]
    assert all(i.version == 7 for i in ids)
    assert ids == sorted(ids)
    assert len(set(ids)) == 100


def test_sequential_ids_are_deterministic_v7() -> None:
    clock = FixedClock(datetime(2026, 1, 1, tzinfo=UTC))
    a = [SequentialIdGen(clock).new_id() for _ in range(2)]
    assert a[0] == a[1]
    gen = SequentialIdGen(clock)
    first, second = gen.new_id(), gen.new_id()
    assert first.version == 7 and first < second


def test_plain_status_machine_refuses_a_skipped_step() -> None:
    assert ACT_STATUS.advance(ActStatus.DRAFT, ActStatus.REVIEW) is ActStatus.REVIEW
    with pytest.raises(InvalidTransition) as info:
        ACT_STATUS.advance(ActStatus.DRAFT, ActStatus.PUBLISHED)
    assert info.value.fields["allowed"] == ["review"]
    assert ACT_STATUS.terminal(ActStatus.PUBLISHED)
