"""A second PostgreSQL database of the test server, migrated, that a test can stop and resume:
the stand-in for a tenant's own database (``TRAMITA_TENANT_DATABASES``)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import psycopg

from core import migrate
from tests.conftest import PG_ADMIN_URL, _branches


@dataclass
class SecondDatabase:
    url: str
    name: str

    def admin(self, sql: str) -> None:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(sql)

    def stop(self) -> None:
        """What a stopped server looks like to the deployment: no connection is accepted."""
        self.admin(f'ALTER DATABASE "{self.name}" ALLOW_CONNECTIONS false')
        self.admin(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            f" WHERE datname = '{self.name}' AND pid <> pg_backend_pid()"
        )

    def resume(self) -> None:
        self.admin(f'ALTER DATABASE "{self.name}" ALLOW_CONNECTIONS true')


@contextmanager
def second_database(prefix: str) -> Iterator[SecondDatabase]:
    """Create and migrate ``<prefix>_<random>``; drop it afterwards, stopped or not."""
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN_URL.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1)
    found = SecondDatabase(url=f"{base}/{name}", name=name)
    try:
        migrate.upgrade(found.url, _branches())
        yield found
    finally:
        found.resume()
        found.admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
