"""``core_idempotency_keys``: one row per ``(user, key)``, reserved by an owner under a lease.

A row is ``running`` while its owner (one attempt of the request) holds the lease, ``done``
once the answer is stored. A reservation whose owner died (a killed process) is not blocked
for the key's whole lifetime: once ``lease_until`` has passed, a retry of the same request
takes it over (:meth:`IdempotencyStore.reserve`), and the dead attempt, if it comes back, can
neither store an answer nor commit an effect under it (every write checks the owner).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from contracts.errors import Conflict, IdempotencyKeyReused
from contracts.idempotency import Reservation, StoredAnswer
from core.dbtypes import UTCDateTime

MAX_KEY_LENGTH = 200
OWNER_LENGTH = 40

metadata = sa.MetaData()
idempotency_keys = sa.Table(
    "core_idempotency_keys",
    metadata,
    sa.Column("user_id", sa.String(100), primary_key=True),
    sa.Column("key", sa.String(MAX_KEY_LENGTH), primary_key=True),
    sa.Column("fingerprint", sa.String(64), nullable=False),
    sa.Column("status", sa.String(20), nullable=False),  # running | done
    sa.Column("status_code", sa.Integer, nullable=True),
    sa.Column("content_type", sa.String(200), nullable=True),
    sa.Column("body", sa.LargeBinary, nullable=True),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("expires_at", UTCDateTime, nullable=False),
    sa.Column("owner", sa.String(OWNER_LENGTH), nullable=True),
    sa.Column("lease_until", UTCDateTime, nullable=True),
    sa.Index("ix_core_idempotency_expires", "expires_at"),
)
_c = idempotency_keys.c
_PK = ("user_id", "key")
_THIS_KEY = (_c.user_id == sa.bindparam("i_user"), _c.key == sa.bindparam("i_key"))

STORE_ANSWER = idempotency_keys.update().where(*_THIS_KEY, _c.owner == sa.bindparam("i_owner"))
"""The answer, if the reservation is still its owner's (one row changed, else none); its SET
clause comes from :func:`answer_parameters`."""
RELEASE = idempotency_keys.delete().where(*_THIS_KEY, _c.owner == sa.bindparam("i_owner"))
"""Forget the reservation (a retry runs again), if it is still its owner's."""


def answer_parameters(reservation: Reservation, answer: StoredAnswer | None) -> dict[str, Any]:
    """The bound values of :data:`STORE_ANSWER` (``answer``) or :data:`RELEASE` (``None``)."""
    values: dict[str, Any] = {
        "i_user": reservation.user_id,
        "i_key": reservation.key,
        "i_owner": reservation.owner,
    }
    if answer is not None:
        values.update(
            status="done",
            status_code=answer.status_code,
            content_type=answer.content_type,
            body=answer.body,
            owner=None,
            lease_until=None,
        )
    return values


class IdempotencyStore:
    """Rows of ``core_idempotency_keys``; each call is its own short transaction."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def reserve(
        self,
        reservation: Reservation,
        fingerprint: str,
        *,
        now: datetime,
        lease_s: int,
        ttl_s: int,
    ) -> StoredAnswer | None:
        """Take the key for ``reservation.owner``; returns the stored answer to replay instead,
        or ``None`` to run the request.

        One statement (an upsert): a new key is inserted; an expired one, or one whose owner's
        lease has passed without an answer (for the same request), is taken over; any other
        row is left alone and read to decide between a replay, a 409 and a 422.
        """
        values = {
            "user_id": reservation.user_id,
            "key": reservation.key,
            "fingerprint": fingerprint,
            "status": "running",
            "owner": reservation.owner,
            "lease_until": now + timedelta(seconds=lease_s),
            "created_at": now,
            "expires_at": now + timedelta(seconds=ttl_s),
        }
        dialect = postgresql if self._engine.dialect.name == "postgresql" else sqlite
        insert = dialect.insert(idempotency_keys).values(**values)
        upsert = insert.on_conflict_do_update(
            index_elements=[_c.user_id, _c.key],
            set_={
                **{name: insert.excluded[name] for name in values if name not in _PK},
                "status_code": None,
                "content_type": None,
                "body": None,
            },
            where=sa.or_(
                _c.expires_at <= now,
                sa.and_(
                    _c.status == "running",
                    _c.lease_until <= now,
                    _c.fingerprint == fingerprint,
                ),
            ),
        ).returning(_c.owner)
        where = (_c.user_id == reservation.user_id, _c.key == reservation.key)
        async with self._connection() as conn:
            if (await conn.execute(upsert)).first() is not None:
                return None
            row = (await conn.execute(sa.select(idempotency_keys).where(*where))).first()
        if row is None:  # deleted between the two statements: a retry will insert
            raise Conflict("the idempotency key is being recycled; retry")
        if row.fingerprint != fingerprint:
            raise IdempotencyKeyReused("this Idempotency-Key was used with a different request")
        if row.status != "done":
            raise Conflict("a request with this Idempotency-Key is still in progress")
        return StoredAnswer(
            status_code=row.status_code, content_type=row.content_type, body=bytes(row.body)
        )

    async def finish(self, reservation: Reservation, answer: StoredAnswer | None) -> bool:
        """Store the answer, or forget the key (``None``) so a retry runs again; ``False`` when
        the reservation is no longer its owner's (a retry took it over and answers itself)."""
        statement = RELEASE if answer is None else STORE_ANSWER
        async with self._connection() as conn:
            result = await conn.execute(statement, answer_parameters(reservation, answer))
        return bool(result.rowcount == 1)

    async def purge_expired(self, now: datetime) -> int:
        async with self._connection() as conn:
            result = await conn.execute(
                idempotency_keys.delete().where(idempotency_keys.c.expires_at <= now)
            )
        return int(result.rowcount or 0)

    def _connection(self) -> _OneStatement:
        return _OneStatement(self._engine)


class _OneStatement:
    """A connection for single statements: on PostgreSQL in autocommit (each statement is
    atomic on its own, and BEGIN and COMMIT would be round trips of their own); on SQLite in
    a transaction (``BEGIN IMMEDIATE``, no network to save)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._conn: AsyncConnection | None = None
        self._tx: Any = None

    async def __aenter__(self) -> AsyncConnection:
        conn = await self._engine.connect()
        self._conn = conn
        if self._engine.dialect.name == "postgresql":
            return await conn.execution_options(isolation_level="AUTOCOMMIT")
        self._tx = await conn.begin()
        return conn

    async def __aexit__(self, *exc: object) -> None:
        assert self._conn is not None
        try:
            if self._tx is not None:
                if exc[0] is None:
                    await self._tx.commit()
                else:
                    await self._tx.rollback()
        finally:
            await self._conn.close()
