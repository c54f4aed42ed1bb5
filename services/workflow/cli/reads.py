"""What the service's read-only commands share: instance references and a fast read path.

An instance is named on the command line by its id or by its protocol number
(``ESIC-2026-000012``, or a NUP with or without its punctuation); :func:`resolve` accepts
either, and refuses a NUP whose check digits are wrong. :func:`with_reads` opens the database
and one unit of work without booting the platform (no plugin hooks, no migrations, no
publishing), so ``tramita instance show`` answers in well under a second.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from contracts.errors import NotFound
from core.cli import run_async
from services.workflow.numbering import numbering_from_env

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

    from contracts.kernel import Clock
    from core.settings import Settings
    from services.workflow.bootstrap import WorkflowService
    from services.workflow.runtime.ports import InstanceRecord, UnitOfWork
    from services.workflow.runtime.ports.access import Viewer

T = TypeVar("T")


def N_(message: str) -> str:
    """Marks a catalog message (``core.i18n.N_`` without importing Babel on the fast path)."""
    return message


def _is_uuid(ref: str) -> bool:
    try:
        uuid.UUID(ref)
    except ValueError:
        return False
    return True


async def resolve(
    uow: UnitOfWork, ref: str, seen: tuple[Viewer, datetime] | None = None
) -> InstanceRecord:
    """The instance whose id or protocol number is ``ref``; ``NotFound`` naming neither
    (a protocol number may identify a citizen's request, so it is kept out of the message).
    With ``seen`` (a viewer and the moment), a case the viewer may not see is the same
    ``NotFound`` (``runtime.services.access``)."""
    ref = ref.strip()
    if _is_uuid(ref):
        record = await uow.instances.get(ref)
    else:
        # A NUP typed with or without punctuation; a wrong check digit is refused by name.
        ref = numbering_from_env(os.environ).lookup(ref, path="instance")
        record = await uow.instances.find_by_protocol(ref)
        if record is None and ref != ref.upper():
            record = await uow.instances.find_by_protocol(ref.upper())
    if record is not None and seen is not None:
        from services.workflow.runtime.services.access import can_see

        if not await can_see(uow, record.id, *seen):
            record = None
    if record is None:
        raise NotFound(N_("unknown instance"))
    return record


async def acting_viewer(service: WorkflowService, user: str | None) -> Viewer | None:
    """Whose sight a command that acts (``--as USER``) works with: that person's, so a case
    they may not see is unknown to it (``runtime.services.access``); without ``--as`` it is the
    system's own command (the console's operator), every case: ``None``."""
    from core.identity import is_uuid
    from services.workflow.runtime.ports.access import Viewer
    from services.workflow.runtime.services.access import CLASSIFY_PERMISSION

    if not user:
        return None
    permissions = service.platform.permissions
    classifier = is_uuid(user) and await permissions.has(user, CLASSIFY_PERMISSION)
    tenant = await home_tenant(service.platform.database, user, service.platform.settings.tenant)
    return Viewer(user_id=user, tenant=tenant, classifier=classifier)


async def home_tenant(database: AsyncEngine, user: str, default: str) -> str:
    """The tenant a command acting as ``user`` works in: their first (``core.tenants``)."""
    from core.identity import is_uuid
    from core.tenancy import acting_tenant
    from core.tenants import memberships

    theirs = await memberships(database, user) if is_uuid(user) else ()
    return acting_tenant(theirs, None, default)


async def instance_id(service: WorkflowService, ref: str, as_user: str | None = None) -> str:
    """The id of the instance ``ref`` names (id or protocol number), in its own transaction;
    acting as ``as_user``, a case they may not see is the same ``NotFound`` as an unknown one."""
    viewer = await acting_viewer(service, as_user)
    seen = None if viewer is None else (viewer, service.platform.clock.now())
    async with service.uow_factory() as uow:
        return (await resolve(uow, ref, seen)).id


def with_database(action: Callable[[AsyncEngine, Settings, Clock], Awaitable[T]]) -> T:
    """Run ``action`` with an engine on ``TRAMITA_DATABASE_URL`` (no boot), then close it."""

    async def _run() -> T:
        from core.clock import SystemClock
        from core.db import create_engine
        from core.settings import load_settings

        settings = load_settings()
        database = create_engine(settings.database_url, pool_size=1)
        try:
            return await action(database, settings, SystemClock())
        finally:
            await database.dispose()

    return run_async(_run)


@contextlib.asynccontextmanager
async def cases_database(home: AsyncEngine, settings: Settings) -> AsyncIterator[AsyncEngine]:
    """Where the cases a command reads live: ``home`` (``TRAMITA_DATABASE_URL``, also where
    people and memberships are read), or the database of the tenant named with
    ``tramita --for`` when it is placed on one (``core.placement``)."""
    from core.db import create_engine
    from core.tenancy import acting_database_url

    url = acting_database_url(settings)
    if url == settings.database_url:
        yield home
        return
    engine = create_engine(url, pool_size=1)
    try:
        yield engine
    finally:
        await engine.dispose()


async def viewer_of(
    database: AsyncEngine, clock: Clock, user: str | None, default_tenant: str
) -> Viewer:
    """Who a command reads as (``--as``): without one, nobody — the deployment's own tenant's
    public cases only; a person needs ``workflow.read`` as on the API and the pages."""
    from contracts.errors import Forbidden
    from core.identity import Directory, is_uuid
    from core.ids import UUIDv7Gen
    from services.workflow.runtime.ports.access import Viewer
    from services.workflow.runtime.services.access import CLASSIFY_PERMISSION

    if user is None:
        return Viewer(user_id=None, tenant=default_tenant)
    granted = (
        await Directory(database, clock, UUIDv7Gen(), {}).of(user) if is_uuid(user) else frozenset()
    )
    if "workflow.read" not in granted:
        raise Forbidden(N_("the user's profile lacks a permission"), permission="workflow.read")
    tenant = await home_tenant(database, user, default_tenant)
    return Viewer(user_id=user, tenant=tenant, classifier=CLASSIFY_PERMISSION in granted)


def with_reads(action: Callable[[UnitOfWork], Awaitable[T]]) -> T:
    """Run ``action`` in one read unit of work on ``TRAMITA_DATABASE_URL``, then close."""

    async def _read(database: AsyncEngine, settings: Settings, clock: Clock) -> T:
        from core.audit import SqlAuditWriter
        from core.ids import UUIDv7Gen
        from services.workflow.persistence.unit_of_work import SqlUnitOfWork

        ids = UUIDv7Gen()
        writer = SqlAuditWriter(clock, ids, chains=settings.audit_chains, tenant=settings.tenant)
        async with (
            cases_database(database, settings) as cases,
            SqlUnitOfWork(cases, clock, ids, writer) as uow,
        ):
            return await action(uow)

    return with_database(_read)


def with_reads_as(
    user: str | None, action: Callable[[UnitOfWork, tuple[Viewer, datetime]], Awaitable[T]]
) -> T:
    """:func:`with_reads` for a person (``--as``): ``action`` gets what :func:`resolve` needs
    to refuse a case they may not see."""

    async def _read(database: AsyncEngine, settings: Settings, clock: Clock) -> T:
        from core.audit import SqlAuditWriter
        from core.ids import UUIDv7Gen
        from services.workflow.persistence.unit_of_work import SqlUnitOfWork

        viewer = await viewer_of(database, clock, user, settings.tenant)
        ids = UUIDv7Gen()
        writer = SqlAuditWriter(clock, ids, chains=settings.audit_chains, tenant=settings.tenant)
        async with (
            cases_database(database, settings) as cases,
            SqlUnitOfWork(cases, clock, ids, writer) as uow,
        ):
            return await action(uow, (viewer, clock.now()))

    return with_database(_read)
