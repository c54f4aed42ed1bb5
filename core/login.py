"""Signing in with a user name and password, throttled per account and per client.

Failed attempts are counted in the database (``core_login_failures``), so every API process
sees the same counts: a user name that failed ``login_account_limit`` times, or a client address
that failed ``login_client_limit`` times, within ``login_window_s`` is refused with
``TooManyRequests`` (429 and ``Retry-After``) until its window ends, whatever the password.
The count is by name, known or not, so the refusal says nothing about which names exist.
Rows are keyed by an HMAC of the name or address under the platform secret: the table holds
no user name and no address.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine

from contracts.errors import TooManyRequests, Unauthenticated
from contracts.kernel import Clock
from core.identity import Directory, User
from core.settings import Settings
from core.tables import login_failures

_UNKNOWN_CLIENT = "unknown"


class LoginThrottle:
    """Counts failed logins in fixed windows per account name and per client address."""

    def __init__(self, engine: AsyncEngine, clock: Clock, settings: Settings) -> None:
        self._engine = engine
        self._clock = clock
        self._secret = settings.secret_key.encode()
        self._window = timedelta(seconds=settings.login_window_s)
        self._limits = {
            "account": settings.login_account_limit,
            "client": settings.login_client_limit,
        }

    def _key(self, kind: str, value: str) -> str:
        return hmac.new(self._secret, f"{kind}:{value}".encode(), hashlib.sha256).hexdigest()

    def _keys(self, username: str, client: str | None) -> dict[str, str]:
        return {
            self._key("account", username.strip().casefold()): "account",
            self._key("client", client or _UNKNOWN_CLIENT): "client",
        }

    async def retry_after(self, username: str, client: str | None) -> int | None:
        """Seconds until this account and client may try again, or ``None`` if they may now."""
        keys = self._keys(username, client)
        now = self._clock.now()
        async with self._engine.connect() as conn:
            rows = await conn.execute(
                sa.select(login_failures).where(login_failures.c.key.in_(list(keys)))
            )
            waits = [
                _seconds(row.window_start + self._window - now)
                for row in rows
                if row.failures >= self._limits[keys[row.key]]
                and row.window_start + self._window > now
            ]
        return max(waits) if waits else None

    async def record_failure(self, username: str, client: str | None) -> None:
        """One more failure for the account and the client (atomic under concurrency)."""
        now = self._clock.now()
        async with self._engine.begin() as conn:
            await conn.execute(
                login_failures.delete().where(login_failures.c.window_start <= now - self._window)
            )
            for key in self._keys(username, client):
                await conn.execute(_count_one(conn.dialect.name, key, now))

    async def record_success(self, username: str) -> None:
        """A right password clears the account's count (the client's keeps its window)."""
        key = self._key("account", username.strip().casefold())
        async with self._engine.begin() as conn:
            await conn.execute(login_failures.delete().where(login_failures.c.key == key))


def _count_one(dialect: str, key: str, now: datetime) -> Any:
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(login_failures).values(key=key, failures=1, window_start=now)
    return statement.on_conflict_do_update(
        index_elements=[login_failures.c.key],
        set_={"failures": login_failures.c.failures + 1},
    )


def _seconds(delta: timedelta) -> int:
    return max(1, math.ceil(delta.total_seconds()))


class Login:
    """The one way the platform checks a user name and password (pages today, API later)."""

    def __init__(self, directory: Directory, throttle: LoginThrottle) -> None:
        self._directory = directory
        self._throttle = throttle

    async def sign_in(self, username: str, password: str, *, client: str | None) -> User:
        """The user, or ``Unauthenticated`` (one answer for an unknown name and a wrong
        password), or ``TooManyRequests`` once the account or the client is throttled."""
        wait = await self._throttle.retry_after(username, client)
        if wait is not None:
            raise TooManyRequests("too many failed logins", retry_after=wait)
        user = await self._directory.authenticate(username, password)
        if user is None:
            await self._throttle.record_failure(username, client)
            raise Unauthenticated("wrong user name or password")
        await self._throttle.record_success(username)
        return user
