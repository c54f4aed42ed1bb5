"""Server-side sessions of the admin pages: a cookie names one, logout revokes it.

The cookie still carries a signed, expiring token (``core.auth.issue_token``) so a forged one
is refused without a query; its ``sid`` claim names a row here, and a revoked, expired or
unknown row ends the session even though the token's signature is still good.
"""

from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from contracts.kernel import Clock, IdGen
from core.tables import sessions


class SessionStore:
    def __init__(self, engine: AsyncEngine, clock: Clock, ids: IdGen) -> None:
        self._engine = engine
        self._clock = clock
        self._ids = ids

    async def open(self, user_id: str, *, ttl_s: int) -> str:
        """A new session for ``user_id``; sessions that have expired are cleared on the way."""
        now = self._clock.now()
        session_id = str(self._ids.new_id())
        async with self._engine.begin() as conn:
            await conn.execute(sessions.delete().where(sessions.c.expires_at <= now))
            await conn.execute(
                sessions.insert().values(
                    id=session_id,
                    user_id=user_id,
                    created_at=now,
                    expires_at=now + timedelta(seconds=ttl_s),
                )
            )
        return session_id

    async def is_live(self, session_id: str, user_id: str) -> bool:
        """Opened for this user, not revoked, not expired."""
        async with self._engine.connect() as conn:
            row = (
                await conn.execute(
                    sa.select(sessions.c.id).where(
                        sessions.c.id == session_id,
                        sessions.c.user_id == user_id,
                        sessions.c.revoked_at.is_(None),
                        sessions.c.expires_at > self._clock.now(),
                    )
                )
            ).first()
        return row is not None

    async def revoke(self, session_id: str) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(
                sessions.update()
                .where(sessions.c.id == session_id, sessions.c.revoked_at.is_(None))
                .values(revoked_at=self._clock.now())
            )
