"""Users with exactly one profile each; a profile grants permissions that plugins declared."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import uuid
from collections.abc import Iterable, Mapping

import msgspec
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from contracts.errors import Conflict, NotFound, ValidationFailed
from contracts.kernel import Clock, IdGen
from core.tables import profile_permissions, profiles, user_tenants, users
from core.textfold import Folded, folded

_SCRYPT = {"n": 2**14, "r": 8, "p": 1}
_DUMMY_HASH = "scrypt$" + "00" * 16 + "$" + "00" * 64
"""Verified when a name is unknown, inactive or has no password, so that every failed login
costs one scrypt of the same parameters and salt length: the time does not tell which names
exist."""


class User(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    username: str
    display_name: str
    profile: str
    active: bool
    tenants: tuple[str, ...] = ()
    """The tenants the person works for, in key order; none: the deployment's own
    (``core.tenants.acting_tenant``)."""


class Person(msgspec.Struct, frozen=True, kw_only=True):
    """One person a search found: who they are, without their profile or anything else."""

    id: str
    username: str
    display_name: str


def hash_password(password: str, *, salt: bytes | None = None) -> str:
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, **_SCRYPT)
    return f"scrypt${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    try:
        scheme, salt_hex, digest_hex = stored.split("$")
    except ValueError:
        return False
    if scheme != "scrypt":
        return False
    digest = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt_hex), **_SCRYPT)
    return hmac.compare_digest(digest.hex(), digest_hex)


class Directory:
    """Users, profiles and the permission check (implements ``contracts.kernel.Permissions``)."""

    def __init__(
        self, engine: AsyncEngine, clock: Clock, ids: IdGen, declared: Mapping[str, str]
    ) -> None:
        self._engine = engine
        self._clock = clock
        self._ids = ids
        self._declared = declared

    async def ensure_profile(self, key: str, name: str, permissions: Iterable[str]) -> str:
        """Create or update a profile so it grants exactly ``permissions``."""
        wanted = sorted(set(permissions))
        unknown = [p for p in wanted if p not in self._declared]
        if unknown:
            raise ValidationFailed(
                "profile grants permissions no plugin declared",
                profile=key,
                permissions=unknown,
            )
        async with self._engine.begin() as conn:
            row = (
                await conn.execute(sa.select(profiles.c.id).where(profiles.c.key == key))
            ).first()
            if row is None:
                profile_id = str(self._ids.new_id())
                await conn.execute(
                    profiles.insert().values(
                        id=profile_id, key=key, name=name, created_at=self._clock.now()
                    )
                )
            else:
                profile_id = row.id
                await conn.execute(
                    profile_permissions.delete().where(
                        profile_permissions.c.profile_id == profile_id
                    )
                )
            if wanted:
                await conn.execute(
                    profile_permissions.insert(),
                    [{"profile_id": profile_id, "permission": p} for p in wanted],
                )
        return profile_id

    async def create_user(
        self,
        username: str,
        *,
        display_name: str,
        profile: str,
        password: str | None = None,
        user_id: str | None = None,
    ) -> User:
        async with self._engine.begin() as conn:
            prof = (
                await conn.execute(sa.select(profiles.c.id).where(profiles.c.key == profile))
            ).first()
            if prof is None:
                raise NotFound("unknown profile", profile=profile)
            exists = (
                await conn.execute(sa.select(users.c.id).where(users.c.username == username))
            ).first()
            if exists is not None:
                raise Conflict("username already taken", user_id=exists.id)
            new_id = user_id or str(self._ids.new_id())
            await conn.execute(
                users.insert().values(
                    id=new_id,
                    username=username,
                    display_name=display_name,
                    password_hash=hash_password(password) if password else None,
                    profile_id=prof.id,
                    active=True,
                    created_at=self._clock.now(),
                )
            )
        return User(
            id=new_id, username=username, display_name=display_name, profile=profile, active=True
        )

    async def get_user(self, user_id: str) -> User:
        async with self._engine.connect() as conn:
            row = (
                await conn.execute(
                    sa.select(users, profiles.c.key.label("profile_key"))
                    .join(profiles, profiles.c.id == users.c.profile_id)
                    .where(users.c.id == user_id)
                )
            ).first()
            if row is None:
                raise NotFound("unknown user", user_id=user_id)
            memberships = await conn.execute(
                sa.select(user_tenants.c.tenant)
                .where(user_tenants.c.user_id == user_id)
                .order_by(user_tenants.c.tenant)
            )
            return User(
                id=row.id,
                username=row.username,
                display_name=row.display_name,
                profile=row.profile_key,
                active=row.active,
                tenants=tuple(str(m.tenant) for m in memberships),
            )

    async def user_named(self, username: str) -> User:
        """The user who signs in as ``username``; ``NotFound`` when there is none (pages that
        add a person to something take the login name a clerk knows, never an id)."""
        async with self._engine.connect() as conn:
            found = (
                await conn.execute(sa.select(users.c.id).where(users.c.username == username))
            ).first()
        if found is None:
            raise NotFound("unknown user")
        return await self.get_user(str(found.id))

    async def find_people(self, text: str, limit: int = 10) -> list[Person]:
        """Active users whose display name or login name contains ``text``, ignoring case and
        Portuguese accents (``core.textfold``), ordered by display name; at most ``limit`` of them.

        A clerk knows "Maria Souza", not ``msouza2``: the pages that add a person search here.
        It scans the users (a deployment's staff, not its citizens); nothing typed is logged.
        """
        wanted = folded(text.strip()) or ""
        if not wanted or limit < 1:
            return []
        async with self._engine.connect() as conn:
            rows = await conn.execute(
                sa.select(users.c.id, users.c.username, users.c.display_name)
                .where(
                    users.c.active.is_(True),
                    sa.or_(
                        Folded(users.c.display_name).contains(wanted, autoescape=True),
                        Folded(users.c.username).contains(wanted, autoescape=True),
                    ),
                )
                .order_by(users.c.display_name, users.c.username)
                .limit(limit)
            )
            return [
                Person(id=str(r.id), username=str(r.username), display_name=str(r.display_name))
                for r in rows
            ]

    async def display_names(self, user_ids: Iterable[str]) -> dict[str, str]:
        """The display name of each known user among ``user_ids`` (one query; unknown ids are
        left out), so a page can show people by name rather than by id."""
        wanted = sorted({u for u in user_ids if u and is_uuid(u)})
        if not wanted:  # an actor named by a module ("officer-7") is no user of ours
            return {}
        async with self._engine.connect() as conn:
            rows = await conn.execute(
                sa.select(users.c.id, users.c.display_name).where(users.c.id.in_(wanted))
            )
            return {str(r.id): str(r.display_name) for r in rows}

    async def authenticate(self, username: str, password: str) -> User | None:
        """The user when the name exists, is active and the password matches, else ``None``.

        Every call verifies exactly one password hash (a dummy one when there is none to
        check), off the event loop: scrypt is deliberately slow.
        """
        async with self._engine.connect() as conn:
            row = (
                await conn.execute(
                    sa.select(users.c.id, users.c.password_hash, users.c.active).where(
                        users.c.username == username
                    )
                )
            ).first()
        usable = row is not None and row.active and bool(row.password_hash)
        stored = row.password_hash if usable and row is not None else _DUMMY_HASH
        matches = await asyncio.to_thread(verify_password, password, stored)
        if not usable or not matches or row is None:
            return None
        return await self.get_user(row.id)

    async def of(self, user_id: str) -> frozenset[str]:
        async with self._engine.connect() as conn:
            rows = await conn.execute(
                sa.select(profile_permissions.c.permission)
                .join(users, users.c.profile_id == profile_permissions.c.profile_id)
                .where(users.c.id == user_id, users.c.active.is_(True))
            )
            return frozenset(r.permission for r in rows)

    async def has(self, user_id: str, permission: str) -> bool:
        return permission in await self.of(user_id)


def is_uuid(value: str) -> bool:
    """User ids are UUIDs; PostgreSQL refuses to compare its uuid column with anything else."""
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True
