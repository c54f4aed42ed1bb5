"""The composition root of the platform: settings, plugins, kernel services, the engine."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from contracts.kernel import Clock, IdGen
from contracts.workflow.engine import WorkflowEngine
from core import heap, migrate, placement
from core.audit import SqlAuditWriter
from core.clock import SystemClock
from core.db import create_engine
from core.identity import Directory
from core.ids import UUIDv7Gen
from core.login import Login, LoginThrottle
from core.plugins import PluginHost
from core.registries import Collected, Registrations
from core.sessions import SessionStore
from core.settings import Settings, load_settings

LONG_RUNNING = frozenset({"server", "worker", "relay", "tick"})
"""The roles of processes that live for hours: their collector is settled after boot
(:mod:`core.heap`)."""


@dataclass
class Platform:
    """Implements ``contracts.platform.PlatformContext``; one per process."""

    settings: Settings
    clock: Clock
    ids: IdGen
    host: PluginHost
    collected: Collected
    registrations: Registrations
    database: AsyncEngine
    audit: SqlAuditWriter
    directory: Directory
    login: Login
    sessions: SessionStore
    workflow: WorkflowEngine | None = None
    role: str = "cli"
    extras: dict[str, Any] = field(default_factory=dict)
    replica: AsyncEngine | None = None
    """``TRAMITA_READ_DATABASE_URL``'s engine, when a replica is configured."""
    placements: dict[str, AsyncEngine] = field(default_factory=dict)
    """``tenant -> engine`` of the tenants on another database (``TRAMITA_TENANT_DATABASES``);
    tenants that share a database share its engine."""

    @property
    def read_database(self) -> AsyncEngine:
        """Where lag-tolerant reads go: the replica if there is one, else the database."""
        return self.replica or self.database

    @property
    def permissions(self) -> Directory:
        return self.directory

    @classmethod
    async def boot(
        cls,
        settings: Settings | None = None,
        *,
        clock: Clock | None = None,
        ids: IdGen | None = None,
        host: PluginHost | None = None,
        upgrade: bool = True,
        role: str = "cli",
    ) -> Platform:
        """Compose the platform. ``role`` says what this process is (``cli`` for one-shot
        commands, ``server`` for ``serve``/``run``, ``worker``, ``relay``) so that plugins start
        only what such a process needs (e.g. in-process delivery only in an embedded server)."""
        settings = settings or load_settings()
        clock = clock or SystemClock()
        ids = ids or UUIDv7Gen()
        if host is None:
            host = PluginHost()
            host.discover()
        collected = host.collect()
        if upgrade:
            await asyncio.to_thread(migrate.upgrade, settings.database_url, collected.migrations)
            await placement.upgrade_each(settings, collected.migrations)
        database = create_engine(settings.database_url, pool_size=settings.db_pool_size)
        directory = Directory(database, clock, ids, collected.permissions)
        platform = cls(
            settings=settings,
            clock=clock,
            ids=ids,
            host=host,
            collected=collected,
            registrations=Registrations.freeze(collected),
            database=database,
            audit=SqlAuditWriter(clock, ids, chains=settings.audit_chains, tenant=settings.tenant),
            directory=directory,
            login=Login(directory, LoginThrottle(database, clock, settings)),
            sessions=SessionStore(database, clock, ids),
            role=role,
        )
        if settings.read_database_url is not None:
            platform.replica = create_engine(
                settings.read_database_url, pool_size=settings.db_pool_size
            )
        platform.placements = placement.engines(settings)
        platform.workflow = host.workflow_engine(platform)
        for pending in host.startup(platform):
            await pending
        if role in LONG_RUNNING:
            heap.settle()
        return platform

    @property
    def plain_mode(self) -> bool:
        return self.workflow is None

    async def close(self) -> None:
        for pending in self.host.shutdown(self):
            await pending
        await self.database.dispose()
        if self.replica is not None:
            await self.replica.dispose()
        for engine in {id(e): e for e in self.placements.values()}.values():
            await engine.dispose()
