"""``Idempotency-Key`` for every mutating request, as one ASGI middleware.

A client that retries (a timeout, a dropped connection) must not start two instances or
complete a task twice. The first answer to ``(user, key)`` is stored with a fingerprint of the
request (method, path, query, body) and replayed verbatim for repeats; the same key with a
different request is ``IdempotencyKeyReused`` (422); a repeat while the first still holds the
key is a 409. Server errors (5xx) and authentication/authorisation failures are not stored, so
a retry after them runs again. Keys expire after ``settings.idempotency_ttl_s``.

Surviving a crash. The key is reserved by an owner (one attempt) under a short lease
(``settings.idempotency_lease_s``). The route's unit of work does not commit on its own: it
hands its open transaction to the request's :class:`contracts.idempotency.AnswerSlot`, and the
answer is written and committed with the effect, in the same transaction, before any byte of
the response leaves. So a key is either free (nothing committed), reserved by a live attempt,
or answered together with its effect; a reservation whose attempt died is taken over once its
lease has passed. A route that commits more than one transaction has the earlier ones commit
as they come (only the last carries the answer); a request without an effect (a 404, a 422)
stores its answer on its own, which is safe because there is nothing to do twice.

The user is the one a *verified* bearer token names, looked up as the route's guard would
(an inactive user is refused, so answers stored for them are never replayed); a request
without one is not recorded (the route's guard refuses it anyway).
"""

from __future__ import annotations

import asyncio
import hashlib

from litestar.connection import ASGIConnection
from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Message, Receive, ReceiveMessage, Scope, Send

from contracts.errors import TramitaError, ValidationFailed
from contracts.idempotency import ANSWER_SLOT, HeldCommit, Reservation, StoredAnswer
from core.auth import authenticate, bearer_of
from core.idempotency_store import MAX_KEY_LENGTH, IdempotencyStore

HEADER = "idempotency-key"
REPLAY_HEADER = b"idempotent-replayed"
MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
NOT_STORED = frozenset({401, 403, 413, 429})
DEFAULT_MAX_BODY = 1024 * 1024

__all__ = ["DEFAULT_MAX_BODY", "IdempotencyMiddleware", "fingerprint"]


def fingerprint(method: str, path: str, query: bytes, body: bytes) -> str:
    digest = hashlib.sha256()
    for part in (method.encode(), path.encode(), query, body):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


class RequestSlot:
    """The request's :class:`~contracts.idempotency.AnswerSlot`: it holds the last committing
    transaction of the task that runs the route (a task the route starts does not count)."""

    def __init__(self) -> None:
        self._task = asyncio.current_task()
        self._held: HeldCommit | None = None
        self._open = True

    def _ours(self) -> bool:
        return self._open and asyncio.current_task() is self._task

    def hold(self, transaction: HeldCommit) -> bool:
        if not self._ours() or self._held is not None:
            return False
        self._held = transaction
        return True

    async def settle(self) -> None:
        if not self._ours() or self._held is None:
            return
        held, self._held = self._held, None
        await held.commit(None, None)

    def close(self) -> HeldCommit | None:
        """No more holding; the transaction waiting for the answer, if any."""
        self._open = False
        held, self._held = self._held, None
        return held


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


async def _user_of(scope: Scope) -> str | None:
    """The active user the bearer token names, as the route's guard resolves it (and caches
    on the request); ``None`` without one."""
    if bearer_of({k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}):
        try:
            return (await authenticate(ASGIConnection(scope))).id
        except TramitaError:
            return None
    return None


class IdempotencyMiddleware(ASGIMiddleware):
    """Store-and-replay for mutating requests that carry ``Idempotency-Key``."""

    scopes = (ScopeType.HTTP,)

    def __init__(self, max_body: int = DEFAULT_MAX_BODY) -> None:
        self.max_body = max_body

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        key = next(
            (v.decode("latin-1") for k, v in scope["headers"] if k.lower() == HEADER.encode()),
            None,
        )
        if scope.get("method") not in MUTATING or key is None:
            await next_app(scope, receive, send)
            return
        user_id = await _user_of(scope)
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
        platform = scope["app"].state.platform
        settings = platform.settings
        store = IdempotencyStore(platform.database)
        method = str(scope.get("method", ""))
        reservation = Reservation(user_id=user_id, key=key, owner=str(platform.ids.new_id()))
        stored = await store.reserve(
            reservation,
            fingerprint(method, scope["path"], scope["query_string"], body),
            now=platform.clock.now(),
            lease_s=settings.idempotency_lease_s,
            ttl_s=settings.idempotency_ttl_s,
        )
        if stored is not None:
            await _replay(send, stored)
            return
        await _run(scope, body, send, next_app, store, reservation)


async def _run(
    scope: Scope,
    body: bytes,
    send: Send,
    next_app: ASGIApp,
    store: IdempotencyStore,
    reservation: Reservation,
) -> None:
    """Run the route with the request's answer slot; commit its effect with the answer, then
    send the response (a client that has the answer finds it stored)."""
    sent_body = False

    async def replay_receive() -> ReceiveMessage:
        nonlocal sent_body
        if sent_body:
            return {"type": "http.disconnect"}
        sent_body = True
        return {"type": "http.request", "body": body, "more_body": False}

    status = 500
    content_type: str | None = None
    messages: list[Message] = []

    async def capture(message: Message) -> None:
        nonlocal status, content_type
        if message["type"] == "http.response.start":
            status = int(message["status"])
            for name, value in message.get("headers", []):
                if name.lower() == b"content-type":
                    content_type = value.decode("latin-1")
        messages.append(message)

    slot = RequestSlot()
    token = ANSWER_SLOT.set(slot)
    try:
        await next_app(scope, replay_receive, capture)
    except BaseException:
        held = slot.close()
        if held is not None:
            await held.rollback()
        await store.finish(reservation, None)
        raise
    finally:
        ANSWER_SLOT.reset(token)
    held = slot.close()
    answer = None
    if status < 500 and status not in NOT_STORED:
        chunks = [m.get("body", b"") for m in messages if m["type"] == "http.response.body"]
        answer = StoredAnswer(status_code=status, content_type=content_type, body=b"".join(chunks))
    if held is None:
        await store.finish(reservation, answer)
    elif status >= 500:  # the route failed after writing: its effect does not stand
        await held.rollback()
        await store.finish(reservation, None)
    else:
        try:
            await held.commit(reservation, answer)
        except BaseException:
            # Safe whatever happened: a committed answer has no owner left to match.
            await store.finish(reservation, None)
            raise
    for message in messages:
        await send(message)


async def _replay(send: Send, stored: StoredAnswer) -> None:
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
