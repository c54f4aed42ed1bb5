"""The port through which a request's ``Idempotency-Key`` answer commits with its effect.

The kernel's HTTP middleware reserves the key (an owner and a short lease) before the route
runs, then has to store the route's answer. Stored in a transaction of its own, after the
effect's, a crash between the two would leave an effect without an answer (a retry would do the
work twice) or a reservation nobody finishes. So the middleware puts an :class:`AnswerSlot` in
:data:`ANSWER_SLOT` for the request; a unit of work that is about to commit hands its open
transaction to the slot (:meth:`AnswerSlot.hold`) instead, and the middleware commits it once
the answer is known, with the answer's row in the same transaction (:meth:`HeldCommit.commit`).

Implemented by ``core.idempotency`` (the slot) and by the workflow service's unit of work (the
held commit); neither imports the other.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Protocol

import msgspec


class Reservation(msgspec.Struct, frozen=True, kw_only=True):
    """Whose key a request holds: ``owner`` is unique per attempt, so a request whose lease was
    taken over by a retry cannot store its answer (or commit its effect) any more."""

    user_id: str
    key: str
    owner: str


class StoredAnswer(msgspec.Struct, frozen=True, kw_only=True):
    """The response replayed to a repeat of the request."""

    status_code: int
    content_type: str | None
    body: bytes


class HeldCommit(Protocol):
    """A transaction whose effect is written and whose COMMIT waits for the request's answer."""

    async def commit(self, reservation: Reservation | None, answer: StoredAnswer | None) -> None:
        """Commit the effect with ``answer`` stored under ``reservation`` (``answer`` ``None``:
        with the reservation released instead, so a retry runs again; ``reservation`` ``None``:
        the effect alone). Raises ``Conflict`` and commits nothing when ``reservation`` is no
        longer its owner's (a retry took the key over)."""
        ...

    async def rollback(self) -> None:
        """End the transaction without effect (the request failed after writing it)."""
        ...


class AnswerSlot(Protocol):
    """The request's place for a held commit."""

    def hold(self, transaction: HeldCommit) -> bool:
        """Take ``transaction`` to commit with the answer; ``False``: the caller commits it
        now (the slot belongs to another task, or is closed)."""
        ...

    async def settle(self) -> None:
        """Commit a held transaction now, without the answer: another transaction of the same
        request is about to begin and must see it (on SQLite it would wait for its lock)."""
        ...


ANSWER_SLOT: ContextVar[AnswerSlot | None] = ContextVar("tramita_answer_slot", default=None)
"""The current request's slot, set by the kernel's middleware; ``None`` outside such a request."""
