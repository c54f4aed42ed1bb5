"""Tenants on several databases (``TRAMITA_TENANT_DATABASES``): which database holds a tenant's
cases, the engines a process keeps for them, and their migrations.

People, sessions, tenants and memberships, the idempotency keys and the modules' own records stay
on ``TRAMITA_DATABASE_URL`` (the home database); the workflow service keeps the cases of a placed
tenant (instances, tasks, timers, documents, history, outbox, audit entries) on that tenant's
database. Every database carries the whole schema, so a tenant can be moved back or elsewhere.

A placed database that does not answer when a process boots does not stop the boot: the other
tenants are served, and that database's work resumes when it answers again (its migrations run
on the next boot, or with ``tramita db upgrade``).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping
from pathlib import Path

import structlog
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from core import migrate
from core.db import create_engine
from core.settings import Settings

log = structlog.get_logger("tramita.placement")


def databases(settings: Settings) -> dict[str, tuple[str, ...]]:
    """``URL -> tenants`` of every placed database, in the order the setting lists them."""
    found: dict[str, tuple[str, ...]] = {}
    for tenant, url in settings.tenant_databases:
        found[url] = (*found.get(url, ()), tenant)
    return found


def label(url: str) -> str:
    """A short, stable name of a database for logs and broker queues: a digest of its host,
    port and name (never its user or password)."""
    parsed = make_url(url)
    where = f"{parsed.host or ''}:{parsed.port or ''}/{parsed.database or ''}"
    return "db-" + hashlib.sha256(where.encode()).hexdigest()[:8]


def engines(settings: Settings) -> dict[str, AsyncEngine]:
    """``tenant -> engine``: one engine (one pool) per database, shared by its tenants."""
    by_tenant: dict[str, AsyncEngine] = {}
    for url, tenants in databases(settings).items():
        engine = create_engine(url, pool_size=settings.db_pool_size)
        by_tenant.update(dict.fromkeys(tenants, engine))
    return by_tenant


def upgrade_all(settings: Settings, branches: Mapping[str, Path]) -> dict[str, list[str]]:
    """Migrate every placed database (``tramita db upgrade``); a failure is raised."""
    return {label(url): migrate.upgrade(url, branches) for url in databases(settings)}


async def upgrade_each(settings: Settings, branches: Mapping[str, Path]) -> None:
    """At boot: migrate every placed database that answers; one that does not is logged (its
    label and tenants, never its URL) and left for the next boot."""
    for url, tenants in databases(settings).items():
        try:
            await asyncio.to_thread(migrate.upgrade, url, branches)
        except Exception as exc:  # noqa: BLE001 - the other tenants must still be served
            log.warning(
                "tenant_database_unavailable",
                database=label(url),
                tenants=list(tenants),
                error_type=type(exc).__name__,
            )
