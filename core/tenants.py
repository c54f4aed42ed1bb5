"""Tenants: the municipalities or bodies one deployment serves, and who works for which.

A tenant owns its cases; the workflow service scopes every case it shows by the caller's tenant
in one place (``persistence.access_repo.seen_by``). Here is only the registry; the rule that
picks the caller's tenant is ``core.tenancy.acting_tenant``. A single-tenant install registers
nothing: everyone works for ``settings.tenant``.
"""

from __future__ import annotations

import msgspec
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from contracts.errors import Conflict, NotFound, ValidationFailed
from contracts.kernel import Clock
from core.i18n import N_
from core.tables import tenants, user_tenants, users
from core.tenancy import KEY


class Tenant(msgspec.Struct, frozen=True, kw_only=True):
    key: str
    name: str


async def memberships(engine: AsyncEngine, user_id: str) -> tuple[str, ...]:
    """The tenants ``user_id`` works for, in key order (none: the deployment's own)."""
    async with engine.connect() as conn:
        rows = await conn.execute(
            sa.select(user_tenants.c.tenant)
            .where(user_tenants.c.user_id == user_id)
            .order_by(user_tenants.c.tenant)
        )
        return tuple(str(r.tenant) for r in rows)


class Tenants:
    """The tenant registry and memberships (``tramita tenant …``)."""

    def __init__(self, engine: AsyncEngine, clock: Clock) -> None:
        self._engine = engine
        self._clock = clock

    async def add(self, key: str, name: str) -> Tenant:
        if not KEY.match(key):
            raise ValidationFailed(
                N_("a tenant key is 1-50 lower-case letters, digits, '-' or '_'"), field="key"
            )
        name = name.strip()
        if not name or len(name) > 200:
            raise ValidationFailed(
                N_("a tenant needs a name of at most 200 characters"), field="name"
            )
        async with self._engine.begin() as conn:
            found = (
                await conn.execute(sa.select(tenants.c.key).where(tenants.c.key == key))
            ).first()
            if found is not None:
                raise Conflict(N_("this tenant already exists"), tenant=key)
            await conn.execute(
                tenants.insert().values(key=key, name=name, created_at=self._clock.now())
            )
        return Tenant(key=key, name=name)

    async def all(self) -> list[Tenant]:
        async with self._engine.connect() as conn:
            rows = await conn.execute(sa.select(tenants).order_by(tenants.c.key))
            return [Tenant(key=r.key, name=r.name) for r in rows]

    async def join(self, user_id: str, tenant: str) -> None:
        """``user_id`` works for ``tenant`` too (idempotent)."""
        async with self._engine.begin() as conn:
            known = (
                await conn.execute(sa.select(tenants.c.key).where(tenants.c.key == tenant))
            ).first()
            if known is None:
                raise NotFound(N_("unknown tenant"), tenant=tenant[:50])
            person = (
                await conn.execute(sa.select(users.c.id).where(users.c.id == user_id))
            ).first()
            if person is None:
                raise NotFound("unknown user", user_id=user_id)
            already = (
                await conn.execute(
                    sa.select(user_tenants.c.tenant).where(
                        user_tenants.c.user_id == user_id, user_tenants.c.tenant == tenant
                    )
                )
            ).first()
            if already is None:
                await conn.execute(user_tenants.insert().values(user_id=user_id, tenant=tenant))

    async def leave(self, user_id: str, tenant: str) -> bool:
        async with self._engine.begin() as conn:
            done = await conn.execute(
                user_tenants.delete().where(
                    user_tenants.c.user_id == user_id, user_tenants.c.tenant == tenant
                )
            )
            return bool(done.rowcount)
