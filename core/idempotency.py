"""``Idempotency-Key`` for every mutating request, as one ASGI middleware.

A client that retries (a timeout, a dropped connection) must not start two instances or
complete a task twice. The first response to ``(user, key)`` is stored with a fingerprint of
the request (method, path, query, body) and replayed verbatim for repeats; the same key with a
different request is ``IdempotencyKeyReused`` (422); a repeat while the first is still running
is a 409. Server errors (5xx) and authentication/authorisation failures are not stored, so a
retry after them runs again. Keys expire after ``settings.idempotency_ttl_s``.

The user is the ``sub`` of a *verified* bearer token: a request without one is not recorded
(the route's guard refuses it anyway).
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta

import msgspec
import sqlalchemy as sa
from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Message, Receive, ReceiveMessage, Scope, Send
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from contracts.errors import Conflict, IdempotencyKeyReused, TramitaError, ValidationFailed
from core.auth import bearer_of, verify_token
from core.dbtypes import UTCDateTime

HEADER = "idempotency-key"
REPLAY_HEADER = b"idempotent-replayed"
MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
NOT_STORED = frozenset({401, 403, 413, 429})
MAX_KEY_LENGTH = 200
DEFAULT_MAX_BODY = 1024 * 1024

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
    sa.Index("ix_core_idempotency_expires", "expires_at"),
)


class StoredResponse(msgspec.Struct, frozen=True, kw_only=True):
    status_code: int
    content_type: str | None
    body: bytes


class IdempotencyStore:
    """Rows of ``core_idempotency_keys``; each call is its own short transaction."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def begin(
        self, user_id: str, key: str, fingerprint: str, *, now: datetime, ttl_s: int
    ) -> StoredResponse | None:
        """Reserve the key; returns the stored response to replay, or ``None`` to proceed."""
        where = (idempotency_keys.c.user_id == user_id, idempotency_keys.c.key == key)
        async with self._engine.begin() as conn:
            await conn.execute(
                idempotency_keys.delete().where(*where, idempotency_keys.c.expires_at <= now)
            )
            try:
                async with conn.begin_nested():
                    await conn.execute(
                        idempotency_keys.insert().values(
                            user_id=user_id,
                            key=key,
                            fingerprint=fingerprint,
                            status="running",
                            created_at=now,
                            expires_at=now + timedelta(seconds=ttl_s),
                        )
                    )
                return None
            except IntegrityError:
                pass  # the key exists: fall through and answer from the stored row
            row = (await conn.execute(sa.select(idempotency_keys).where(*where))).first()
        if row is None:  # expired and purged between the two statements: a retry will insert
            raise Conflict("the idempotency key is being recycled; retry", key_length=len(key))
        if row.fingerprint != fingerprint:
            raise IdempotencyKeyReused("this Idempotency-Key was used with a different request")
        if row.status != "done":
            raise Conflict("a request with this Idempotency-Key is still in progress")
        return StoredResponse(
            status_code=row.status_code, content_type=row.content_type, body=bytes(row.body)
        )

    async def finish(self, user_id: str, key: str, response: StoredResponse | None) -> None:
        """Store the response, or forget the key (``None``) so a retry runs again."""
        where = (idempotency_keys.c.user_id == user_id, idempotency_keys.c.key == key)
        async with self._engine.begin() as conn:
            if response is None:
                await conn.execute(idempotency_keys.delete().where(*where))
                return
            await conn.execute(
                idempotency_keys.update()
                .where(*where)
                .values(
                    status="done",
                    status_code=response.status_code,
                    content_type=response.content_type,
                    body=response.body,
                )
            )

    async def purge_expired(self, now: datetime) -> int:
        async with self._engine.begin() as conn:
            result = await conn.execute(
                idempotency_keys.delete().where(idempotency_keys.c.expires_at <= now)
            )
        return int(result.rowcount or 0)


def fingerprint(method: str, path: str, query: bytes, body: bytes) -> str:
    digest = hashlib.sha256()
    for part in (method.encode(), path.encode(), query, body):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


async def _read_body(receive: Receive, limit: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), True
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return b"", False
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), True


class IdempotencyMiddleware(ASGIMiddleware):
    """Store-and-replay for mutating requests that carry ``Idempotency-Key``."""

    scopes = (ScopeType.HTTP,)

    def __init__(self, max_body: int = DEFAULT_MAX_BODY) -> None:
        self.max_body = max_body

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        key = headers.get(HEADER)
        if scope.get("method") not in MUTATING or key is None:
            await next_app(scope, receive, send)
            return
        platform = scope["app"].state.platform
        now = platform.clock.now()
        token = bearer_of(headers)
        try:
            user_id = (
                None
                if token is None
                else verify_token(platform.settings.secret_key, token, now=now)
            )
        except TramitaError:
            user_id = None
        if user_id is None:
            await next_app(scope, receive, send)
            return
        if not key or len(key) > MAX_KEY_LENGTH:
            raise ValidationFailed(
                "the Idempotency-Key header must have 1 to 200 characters",
                max_length=MAX_KEY_LENGTH,
            )
        body, within = await _read_body(receive, self.max_body)
        if not within:
            await _send_plain(send, 413, b'{"status":413,"title":"Request body too large"}')
            return
        store = IdempotencyStore(platform.database)
        method = str(scope.get("method", ""))
        digest = fingerprint(method, scope["path"], scope["query_string"], body)
        stored = await store.begin(
            user_id, key, digest, now=now, ttl_s=platform.settings.idempotency_ttl_s
        )
        if stored is not None:
            await _replay(send, stored)
            return
        await self._run(scope, body, send, next_app, store, user_id, key)

    async def _run(
        self,
        scope: Scope,
        body: bytes,
        send: Send,
        next_app: ASGIApp,
        store: IdempotencyStore,
        user_id: str,
        key: str,
    ) -> None:
        sent_body = False

        async def replay_receive() -> ReceiveMessage:
            nonlocal sent_body
            if sent_body:
                return {"type": "http.disconnect"}
            sent_body = True
            return {"type": "http.request", "body": body, "more_body": False}

        status = 500
        content_type: str | None = None
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            nonlocal status, content_type
            if message["type"] == "http.response.start":
                status = int(message["status"])
                for name, value in message.get("headers", []):
                    if name.lower() == b"content-type":
                        content_type = value.decode("latin-1")
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
            await send(message)

        try:
            await next_app(scope, replay_receive, capture)
        except BaseException:
            await store.finish(user_id, key, None)
            raise
        keep = status < 500 and status not in NOT_STORED
        await store.finish(
            user_id,
            key,
            StoredResponse(status_code=status, content_type=content_type, body=b"".join(chunks))
            if keep
            else None,
        )


async def _replay(send: Send, stored: StoredResponse) -> None:
    headers = [(REPLAY_HEADER, b"true")]
    if stored.content_type:
        headers.append((b"content-type", stored.content_type.encode("latin-1")))
    headers.append((b"content-length", str(len(stored.body)).encode()))
    await send({"type": "http.response.start", "status": stored.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": stored.body, "more_body": False})


async def _send_plain(send: Send, status: int, body: bytes) -> None:
    headers = [(b"content-type", b"application/problem+json")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})
